// Test support (not built): the bundled real CLIs run directly against a model stand-in, each run in
// a git working tree and a HOME of its own, with a minimal environment.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startModelStandIn, type ModelStandIn } from './server.js';

const require = createRequire(import.meta.url);

/** The CLIs the agent SDKs bundle (their platform packages), as the sandboxes service finds them. */
export const CODEX_CLI = join(dirname(require.resolve('@openai/codex-linux-x64/package.json')), 'vendor', 'x86_64-unknown-linux-musl', 'bin', 'codex');
export const CLAUDE_CLI = join(dirname(require.resolve('@anthropic-ai/claude-agent-sdk-linux-x64/package.json')), 'claude');

export function assertClisPresent(): void {
  for (const cli of [CODEX_CLI, CLAUDE_CLI]) if (!existsSync(cli)) throw new Error(`the bundled CLI is missing (npm install): ${cli}`);
}

/** The stand-in MCP tool server's launcher (bin/), with node: the command to hand a CLI. */
export const MCP_TOOL_SERVER = [process.execPath, fileURLToPath(new URL('../bin/mcp-tool-server.mjs', import.meta.url))] as const;

export interface Workspace {
  /** The git working tree the CLI runs in (a real path: the CLIs report real paths). */
  tree: string;
  /** HOME of the CLI: its threads live here, so a resumed turn uses the same workspace. */
  home: string;
  /** TMPDIR, not under HOME (codex refuses to set up its helpers when its HOME is under TMPDIR). */
  tmp: string;
  cleanup(): Promise<void>;
}

export async function makeWorkspace(files: Record<string, string> = { 'README.md': '# fixture\n' }): Promise<Workspace> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'model-stand-in-')));
  const [tree, home, tmp] = [join(root, 'tree'), join(root, 'home'), join(root, 'tmp')];
  for (const dir of [tree, home, tmp]) await mkdir(dir);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(tree, path)), { recursive: true });
    await writeFile(join(tree, path), content);
  }
  const git = (...args: string[]): void => {
    execFileSync('git', args, { cwd: tree, stdio: 'ignore' });
  };
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('-c', 'user.name=test', '-c', 'user.email=test@example.invalid', 'commit', '-q', '-m', 'init');
  return { tree, home, tmp, cleanup: () => rm(root, { recursive: true, force: true }) };
}

function baseEnv(workspace: Workspace): Record<string, string> {
  return { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: workspace.home, TMPDIR: workspace.tmp, LANG: 'C.UTF-8' };
}

/**
 * A suite's model stand-in (started before its tests, closed after) and its workspaces (removed
 * after). Call at the top of a test file.
 */
export function standInSuite(): { standIn: () => ModelStandIn; workspace: (files?: Record<string, string>) => Promise<Workspace> } {
  let standIn: ModelStandIn | undefined;
  const workspaces: Workspace[] = [];
  beforeAll(async () => {
    assertClisPresent();
    standIn = await startModelStandIn();
  });
  afterAll(async () => {
    await standIn?.close();
    await Promise.all(workspaces.map((w) => w.cleanup()));
  });
  return {
    standIn: () => {
      if (!standIn) throw new Error('the model stand-in is started in beforeAll');
      return standIn;
    },
    workspace: async (files) => {
      const made = await makeWorkspace(files);
      workspaces.push(made);
      return made;
    },
  };
}

export interface CliRun {
  /** Every stdout line, parsed (both CLIs print one JSON value a line). */
  lines: Record<string, unknown>[];
  exitCode: number | null;
  stderr: string;
}

/** A CLI that has not ended by then is killed (its run then fails its test), so no test leaves one behind. */
const CLI_DEADLINE_MS = 45_000;

function collect(child: ReturnType<typeof spawn>, onLine?: (line: Record<string, unknown>) => void): Promise<CliRun> {
  const deadline = setTimeout(() => child.kill('SIGKILL'), CLI_DEADLINE_MS);
  child.once('close', () => clearTimeout(deadline));
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const reader = createInterface({ input: child.stdout! });
  reader.on('line', (text) => {
    if (text.trim() === '') return;
    const line = JSON.parse(text) as Record<string, unknown>;
    lines.push(line);
    onLine?.(line);
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ lines, exitCode: code, stderr }));
  });
}

export interface CliOptions {
  /** codex `--model`, Claude Code `--model=`. */
  model?: string;
  /** The thread (codex) or session (Claude Code) to continue. */
  resume?: string;
  /** Hands the CLI the stand-in MCP tool server (as `standin`) offering these tools (allowed, for Claude Code). */
  mcpTools?: string[];
  /** The tool server starts this much later (a shell sleeps first): one slow to start. codex only. */
  mcpToolServerStartDelayMs?: number;
  /** More codex `-c key=value` overrides (TOML values); with mcpTools, `mcp_optional_startup_grace_ms` is 60000 unless given. */
  codexConfig?: Record<string, string>;
  /** Called on every output line as it arrives (e.g. to kill the CLI mid-turn). */
  onLine?: (line: Record<string, unknown>, kill: () => void) => void;
}

/** The stand-in tool server as a codex `mcp_servers` entry (TOML), started `delayMs` late. */
function codexToolServer(tools: string[], delayMs: number): string {
  const [node, server] = MCP_TOOL_SERVER;
  const [command, args] = delayMs > 0 ? ['/bin/sh', ['-c', `sleep ${delayMs / 1000}; exec "$0" "$@"`, node, server, ...tools]] : [node, [server, ...tools]];
  return `{command=${JSON.stringify(command)}, args=${JSON.stringify(args)}}`;
}

/**
 * `codex exec --experimental-json` against the stand-in, as a custom provider with plain HTTP
 * streaming (no websocket attempt), no nested sandbox, plugins, apps and analytics off.
 */
export function runCodex(baseUrl: string, workspace: Workspace, prompt: string, options: CliOptions = {}): Promise<CliRun> {
  const provider = `{name="stand", base_url="${baseUrl}", wire_api="responses", env_key="CODEX_API_KEY", supports_websockets=false}`;
  const args = [
    'exec',
    '--experimental-json',
    '--skip-git-repo-check',
    '--cd',
    workspace.tree,
    '-c',
    'model_provider="stand"',
    '-c',
    `model_providers.stand=${provider}`,
    '-c',
    'approval_policy="never"',
    '--sandbox',
    'danger-full-access',
    '--disable',
    'plugins',
    '--disable',
    'remote_plugin',
    '--disable',
    'apps',
    '-c',
    'analytics.enabled=false',
    ...(options.model ? ['--model', options.model] : []),
    ...(options.mcpTools ? ['-c', `mcp_servers.standin=${codexToolServer(options.mcpTools, options.mcpToolServerStartDelayMs ?? 0)}`] : []),
    // As @ars/harnesses does: a turn waits for a tool server still starting (codex's own grace is 1 s).
    ...Object.entries({ ...(options.mcpTools ? { mcp_optional_startup_grace_ms: '60000' } : {}), ...options.codexConfig }).flatMap(([key, value]) => [
      '-c',
      `${key}=${value}`,
    ]),
    ...(options.resume ? ['resume', options.resume] : []),
  ];
  const child = spawn(CODEX_CLI, args, { env: { ...baseEnv(workspace), CODEX_API_KEY: 'sk-stand-in' }, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(prompt);
  const kill = (): void => {
    child.kill('SIGTERM');
  };
  return collect(child, options.onLine ? (line) => options.onLine?.(line, kill) : undefined);
}

/**
 * Claude Code as the agent SDK drives it: stream-json in and out, the initialize control request,
 * then the prompt; stdin closes after the `result`.
 */
export function runClaude(baseUrl: string, workspace: Workspace, prompt: string, options: CliOptions = {}): Promise<CliRun> {
  const args = [
    '--output-format',
    'stream-json',
    '--verbose',
    '--input-format',
    'stream-json',
    '--permission-mode=acceptEdits',
    `--allowedTools=${['Bash', 'Write', 'Edit', 'Read', ...(options.mcpTools ?? []).map((tool) => `mcp__standin__${tool}`)].join(',')}`,
    ...(options.mcpTools
      ? [`--mcp-config=${JSON.stringify({ mcpServers: { standin: { command: MCP_TOOL_SERVER[0], args: [MCP_TOOL_SERVER[1], ...options.mcpTools] } } })}`]
      : []),
    ...(options.model ? [`--model=${options.model}`] : []),
    ...(options.resume ? [`--resume=${options.resume}`] : []),
  ];
  const env = {
    ...baseEnv(workspace),
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-stand-in',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
  };
  const child = spawn(CLAUDE_CLI, args, { cwd: workspace.tree, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const send = (value: unknown): void => {
    child.stdin.write(`${JSON.stringify(value)}\n`);
  };
  send({ type: 'control_request', request_id: 'init-1', request: { subtype: 'initialize' } });
  send({ type: 'user', session_id: '', message: { role: 'user', content: [{ type: 'text', text: prompt }] }, parent_tool_use_id: null });
  const kill = (): void => {
    child.kill('SIGTERM');
  };
  return collect(child, (line) => {
    if (line.type === 'result') child.stdin.end();
    options.onLine?.(line, kill);
  });
}

/** Codex: the `item.completed` items of one type, in order. */
export function codexItems(run: CliRun, type: string): Record<string, unknown>[] {
  return run.lines
    .filter((line) => line.type === 'item.completed')
    .map((line) => line.item as Record<string, unknown>)
    .filter((item) => item.type === type);
}

/** Claude Code: the blocks of one type of its assistant messages, in order. */
export function claudeBlocks(run: CliRun, type: string): Record<string, unknown>[] {
  return run.lines
    .filter((line) => line.type === 'assistant')
    .flatMap((line) => ((line.message as Record<string, unknown>).content as Record<string, unknown>[]) ?? [])
    .filter((block) => block.type === type);
}

/** Claude Code: the tool results its user messages carry, in order. */
export function claudeToolResults(run: CliRun): Record<string, unknown>[] {
  return run.lines
    .filter((line) => line.type === 'user')
    .flatMap((line) => ((line.message as Record<string, unknown>).content as Record<string, unknown>[]) ?? [])
    .filter((block) => typeof block === 'object' && block !== null && block.type === 'tool_result');
}

export function claudeResult(run: CliRun): Record<string, unknown> | undefined {
  return run.lines.find((line) => line.type === 'result');
}
