// The stand-in MCP tool server: which tools it offers, and what it answers over stdio.
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, test } from '@jest/globals';
import { answerMcp, toolsOfPrompt } from './mcpToolServer.js';
import { MCP_TOOL_SERVER } from './testing.js';

/** Starts the launcher with `args`, sends `requests` one a line, and returns the answers and exit code. */
async function serve(args: string[], requests: unknown[]): Promise<{ answers: Record<string, unknown>[]; code: number | null }> {
  const child = spawn(MCP_TOOL_SERVER[0], [MCP_TOOL_SERVER[1], ...args], { stdio: ['pipe', 'pipe', 'ignore'] });
  const answers: Record<string, unknown>[] = [];
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => answers.push(JSON.parse(line) as Record<string, unknown>));
  for (const request of requests) child.stdin.write(`${JSON.stringify(request)}\n`);
  child.stdin.end();
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { answers, code };
}

describe("--prompt-file: the tools offered are those the prompt's @tool lines name", () => {
  test('each named tool once, in order; other directives and text name none', () => {
    expect(toolsOfPrompt('fix it\n@tool search {"q":"x"}\n@say hi\n@tool deploy\n@tool search {"q":"y"}\n@shell ls')).toEqual(['search', 'deploy']);
    expect(toolsOfPrompt('no directives here')).toEqual([]);
  });
  test('a name no CLI would take (dots, over 64 characters) is not offered', () => {
    expect(toolsOfPrompt(`@tool a.b\n@tool ${'x'.repeat(65)}\n@tool ok_1-2`)).toEqual(['ok_1-2']);
  });
  test('the launcher reads the file and lists those tools over stdio', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'tool-server-')), 'prompt.txt');
    await writeFile(file, '@tool search {"q":"x"}\n@tool gives');
    const { answers, code } = await serve(
      ['--prompt-file', file],
      [
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'search', arguments: { q: 'x' } } },
      ],
    );
    expect(code).toBe(0);
    expect(answers.map((answer) => answer.id)).toEqual([1, 2, 3]);
    expect(answers[1]).toMatchObject({ result: { tools: [{ name: 'search' }, { name: 'gives' }] } });
    expect(answers[2]).toEqual({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'stand-in tool search called' }], isError: false } });
  });
  test('a prompt naming no tool: the server still answers, with no tools', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'tool-server-')), 'prompt.txt');
    await writeFile(file, '@say hello');
    const { answers, code } = await serve(['--prompt-file', file], [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]);
    expect(code).toBe(0);
    expect(answers).toEqual([{ jsonrpc: '2.0', id: 1, result: { tools: [] } }]);
  });
});

describe('tools/call of a tool not offered is refused (-32602)', () => {
  test('no tool of that name', () => {
    expect(answerMcp(['search'], { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'deploy', arguments: {} } })).toEqual({
      error: { code: -32602, message: 'no tool deploy' },
    });
  });
});

describe('without tool names or a prompt file the launcher says how to use it', () => {
  test('exit code 2', async () => {
    const { code } = await serve([], []);
    expect(code).toBe(2);
  });
});
