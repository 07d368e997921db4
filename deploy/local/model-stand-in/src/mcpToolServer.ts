// A stand-in MCP tool server (stdio transport: one JSON-RPC message a line) for `@tool <name>`:
// handed to a CLI, it offers the tools named on its command line, or those a prompt's `@tool` lines
// name (`--prompt-file <file>`: how the sandboxes service hands it to every real CLI under
// HARNESS_STAND_IN_TOOLS=on), each taking any JSON object and answering `stand-in tool <name> called`
// (the stand-in CLIs' words). The model stand-in calls such a tool by its name; the CLI then reports
// a real MCP tool call (codex `mcp_tool_call`, Claude Code `mcp__<server>__<name>`).
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parseDirectives } from '@ars/harness-stand-ins';

const PROTOCOL_VERSION = '2025-06-18';

type JsonRpcId = string | number;
type Reply = { result: unknown } | { error: { code: number; message: string } };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The answer to one request (null for a notification, which gets none). */
export function answerMcp(tools: readonly string[], message: Record<string, unknown>): Reply | null {
  const method = typeof message.method === 'string' ? message.method : '';
  const params = isRecord(message.params) ? message.params : {};
  if (message.id === undefined) return null;
  switch (method) {
    case 'initialize':
      return {
        result: {
          protocolVersion: typeof params.protocolVersion === 'string' ? params.protocolVersion : PROTOCOL_VERSION,
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: 'ars-stand-in-tools', version: '0.1.0' },
        },
      };
    case 'ping':
      return { result: {} };
    case 'tools/list':
      return {
        result: {
          tools: tools.map((name) => ({
            name,
            description: `Stand-in tool ${name}: takes any JSON object.`,
            inputSchema: { type: 'object', additionalProperties: true },
          })),
        },
      };
    case 'tools/call': {
      const name = typeof params.name === 'string' ? params.name : '';
      if (!tools.includes(name)) return { error: { code: -32602, message: `no tool ${name}` } };
      // Text only, as the stand-in CLIs answer: Claude Code would show structured content instead of it.
      return { result: { content: [{ type: 'text', text: `stand-in tool ${name} called` }], isError: false } };
    }
    default:
      return { error: { code: -32601, message: `method not found: ${method}` } };
  }
}

/** A name both CLIs take for an MCP tool (Claude Code's rule, the stricter). */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The tools a prompt's `@tool` lines name, each once, in order (names no CLI takes are left out). */
export function toolsOfPrompt(prompt: string): string[] {
  const named = parseDirectives(prompt).flatMap((step) => (step.kind === 'tool' ? [step.name] : []));
  return [...new Set(named)].filter((name) => TOOL_NAME.test(name));
}

/** The tools to offer: `--prompt-file <file>`'s `@tool` names (maybe none), else the names given. */
async function toolsOf(argv: readonly string[]): Promise<string[] | null> {
  if (argv[0] === '--prompt-file' && argv.length === 2) return toolsOfPrompt(await readFile(argv[1] as string, 'utf8'));
  const tools = argv.filter((name) => TOOL_NAME.test(name));
  return tools.length > 0 ? tools : null;
}

/** Serves stdin/stdout until stdin closes. `argv`: the tool names, or `--prompt-file <file>`. */
export async function main(argv: readonly string[]): Promise<number> {
  const tools = await toolsOf(argv);
  if (tools === null) {
    process.stderr.write('usage: mcp-tool-server <tool name>… (letters, digits, _ and -) | mcp-tool-server --prompt-file <file>\n');
    return 2;
  }
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (line.trim() === '') continue;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } })}\n`);
      continue;
    }
    if (!isRecord(message)) continue;
    const reply = answerMcp(tools, message);
    if (reply !== null) process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id as JsonRpcId, ...reply })}\n`);
  }
  return 0;
}
