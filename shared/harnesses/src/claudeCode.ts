// The claude-code adapter: drives a Claude Code CLI (real, or the stand-in) through
// `@anthropic-ai/claude-agent-sdk` and maps its stream-json messages to HarnessEvents (table in
// README.md).
import type { McpStdioServerConfig } from '@anthropic-ai/claude-agent-sdk';
import { claudeConfigDir, sessionCostSoFar, turnCost } from './claudeTranscript.js';
import { harnessModeOf, withMode } from './runModes.js';
import {
  EventSink,
  NO_API_KEY_PLACEHOLDER,
  SinkError,
  errorText,
  isRecord,
  modelApiRoot,
  num,
  pathInTree,
  str,
  type HarnessEvent,
  type HarnessResult,
  type HarnessToolServer,
  type HarnessUsage,
  type RunHarnessOptions,
} from './adapter.js';

/** Claude Code tools that edit files: their tool_call is followed by a file_change. */
const FILE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

/**
 * Tools Claude Code may use without asking: nobody is there to approve, and a tool that would ask
 * is refused. Only tools Claude Code 2.1.330 has (checked by running it; recheck when it moves):
 * Bash, Read, Edit, Write and Agent it offers always; Glob and Grep only when named here (the
 * native build otherwise searches through Bash); NotebookEdit, WebFetch and WebSearch are its
 * "deferred" tools, loaded through ToolSearch when the model asks for them. Gone in this version:
 * LS, MultiEdit, TodoWrite, BashOutput, KillShell, Task (now Agent). MCP tools are named
 * `mcp__<server>__<tool>`.
 */
export const ALLOWED_TOOLS = ['Bash', 'Read', 'Edit', 'Write', 'Glob', 'Grep', 'Agent', 'NotebookEdit', 'WebFetch', 'WebSearch'] as const;

/** The run's tool servers as Claude Code's `mcpServers` (the SDK hands them over as `--mcp-config`). */
function claudeToolServers(servers: Record<string, HarnessToolServer>): Record<string, McpStdioServerConfig> {
  return Object.fromEntries(Object.entries(servers).map(([name, server]) => [name, { type: 'stdio', command: server.command, args: server.args }]));
}

/** An MCP tool's name as Claude Code gives it, `mcp__<server>__<tool>`, split; null for its own tools. */
export function mcpToolOf(name: string): { server: string; tool: string } | null {
  const match = /^mcp__(.+?)__(.+)$/.exec(name);
  return match ? { server: match[1] as string, tool: match[2] as string } : null;
}

/** Where Claude Code goes without `ANTHROPIC_BASE_URL`. */
export const ANTHROPIC_API_ROOT = 'https://api.anthropic.com';

/**
 * Variables that already give Claude Code a credential or another provider: with one of them in
 * `env` and no `apiKey`, no placeholder key is added (it would take precedence over theirs).
 */
const CLAUDE_CREDENTIAL_VARS = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
  'CLAUDE_CODE_USE_FOUNDRY',
] as const;

/**
 * Claude Code's environment: the caller's, plus
 * - the provider: `ANTHROPIC_BASE_URL` = `modelBaseUrl`'s root (it adds `/v1/messages` itself);
 *   `ANTHROPIC_API_KEY` = `apiKey`, else the placeholder unless env already has a credential;
 * - no traffic but the model's: without `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC` it also sends
 *   `HEAD /api/hello` and a title-generation request; the auto-updater, telemetry and error
 *   reporting are off too.
 */
export function claudeCodeEnv(options: Pick<RunHarnessOptions, 'env' | 'apiKey' | 'modelBaseUrl'>): Record<string, string> {
  const env: Record<string, string> = { ...options.env };
  if (options.apiKey) env.ANTHROPIC_API_KEY = options.apiKey;
  else if (!CLAUDE_CREDENTIAL_VARS.some((name) => env[name])) env.ANTHROPIC_API_KEY = NO_API_KEY_PLACEHOLDER;
  if (options.modelBaseUrl !== undefined) env.ANTHROPIC_BASE_URL = modelApiRoot(options.modelBaseUrl);
  // Bounded retries: by default Claude Code retries an unreachable provider 10 times with backoff
  // up to 32 s (measured: the run failed after 187 s); 5 end it in about 16 s. A value the caller set is kept.
  env.CLAUDE_CODE_MAX_RETRIES ||= String(CLAUDE_MAX_RETRIES);
  env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = '1';
  env.DISABLE_AUTOUPDATER = '1';
  env.DISABLE_TELEMETRY = '1';
  env.DISABLE_ERROR_REPORTING = '1';
  return env;
}

/** How long Claude Code may take to exit once it has sent its result before it is stopped. */
export const CLAUDE_EXIT_AFTER_RESULT_MS = 10_000;

/**
 * How long its output is still read once it was stopped (the SDK sends SIGTERM, then SIGKILL 5 s
 * later). Past that the turn ends without waiting for the end of the output: a process the CLI
 * started can hold the pipe open after the CLI is gone, and the SDK's stream then never ends (a
 * fresh CI run saw a run stay streaming 90 s after its result and the stop). The sandbox's release
 * ends whatever is left.
 */
export const CLAUDE_OUTPUT_AFTER_STOP_MS = 10_000;

/** `CLAUDE_CODE_MAX_RETRIES` unless the caller's env sets it. */
export const CLAUDE_MAX_RETRIES = 5;

interface PendingTool {
  name: string;
  input: unknown;
}

export class ClaudeStreamMapper {
  readonly pending = new Map<string, PendingTool>();
  result: { status: 'success' | 'failed'; error?: string; usage: HarnessUsage } | null = null;
  sessionStarted: string | null = null;
  /** `system`/`init` `session_id`: the session the caller can resume. */
  sessionId: string | null = null;

  private readonly providerUrl: string | null;
  private readonly costBaseline: number | null;

  /**
   * @param cwd paths in events are made relative to it
   * @param context.providerUrl the model API, named in a failure to reach it (Claude Code's own
   *   message says only "Connection refused")
   * @param context.costBaseline a resumed session's cost before this turn (claudeTranscript.ts):
   *   Claude Code's `total_cost_usd` includes it
   */
  constructor(
    private readonly cwd: string,
    context: { providerUrl?: string | null; costBaseline?: number | null } = {},
  ) {
    this.providerUrl = context.providerUrl ?? null;
    this.costBaseline = context.costBaseline ?? null;
  }

  /** Maps one SDK message (of unknown shape) to HarnessEvents. */
  map(message: unknown): HarnessEvent[] {
    if (!isRecord(message)) return [];
    switch (message.type) {
      case 'system':
        if (message.subtype === 'init') {
          this.sessionId = str(message.session_id);
          this.sessionStarted = `claude-code session ${str(message.session_id) ?? ''} started (model ${str(message.model) ?? 'default'})`;
        }
        return [];
      case 'assistant':
        return this.assistant(message);
      case 'user':
        return this.user(message);
      case 'result':
        return this.resultMessage(message);
      default:
        // stream_event, status, hooks, tasks and unknown messages: nothing to record.
        return [];
    }
  }

  private assistant(message: Record<string, unknown>): HarnessEvent[] {
    const events: HarnessEvent[] = [];
    const inner = isRecord(message.message) ? message.message : {};
    const content = Array.isArray(inner.content) ? inner.content : [];
    for (const block of content) {
      if (!isRecord(block)) continue;
      if (block.type === 'text') {
        events.push({ type: 'assistant_message', toolName: null, message: str(block.text) ?? '', payload: {} });
      } else if (block.type === 'thinking') {
        events.push({ type: 'reasoning', toolName: null, message: str(block.thinking) ?? '', payload: {} });
      } else if (block.type === 'tool_use' || block.type === 'server_tool_use' || block.type === 'mcp_tool_use') {
        // Reported once its result arrives (it carries the exit code and output).
        const id = str(block.id) ?? `tool_${this.pending.size}`;
        this.pending.set(id, { name: str(block.name) ?? 'unknown', input: block.input ?? null });
      }
    }
    if (typeof message.error === 'string') {
      events.push({ type: 'error', toolName: null, message: `assistant error: ${message.error}`, payload: { fatal: false, source: 'assistant' } });
    }
    return events;
  }

  private user(message: Record<string, unknown>): HarnessEvent[] {
    const events: HarnessEvent[] = [];
    const inner = isRecord(message.message) ? message.message : {};
    const content = Array.isArray(inner.content) ? inner.content : [];
    for (const block of content) {
      if (!isRecord(block) || block.type !== 'tool_result') continue;
      const id = str(block.tool_use_id) ?? '';
      const tool = this.pending.get(id) ?? { name: 'unknown', input: null };
      this.pending.delete(id);
      events.push(...this.toolCall(tool, { content: block.content, isError: block.is_error === true, detail: message.tool_use_result }));
    }
    return events;
  }

  private toolCall(tool: PendingTool, result: { content: unknown; isError: boolean; detail: unknown } | null): HarnessEvent[] {
    const input = tool.input;
    const inputRecord = isRecord(input) ? input : {};
    if (tool.name === 'Bash') {
      const command = str(inputRecord.command);
      const payload: Record<string, unknown> = { kind: 'shell', input };
      if (result) {
        // Claude Code puts "Exit code N" first in the result of a failed command.
        const text = contentText(result.content);
        const exit = /^Exit code (\d+)/.exec(text);
        payload.exitCode = result.isError ? (exit ? Number(exit[1]) : null) : 0;
        payload.output = result.isError && exit ? text.slice(exit[0].length).replace(/^\n/, '') : text;
        payload.isError = result.isError;
      } else payload.status = 'unfinished';
      return [{ type: 'tool_call', toolName: 'Bash', message: command, payload }];
    }
    if (FILE_TOOLS.has(tool.name)) {
      const rawPath = str(inputRecord.file_path) ?? str(inputRecord.notebook_path) ?? '';
      const path = pathInTree(this.cwd, rawPath);
      const payload: Record<string, unknown> = { kind: 'file_edit', input: { ...inputRecord, file_path: path } };
      if (result) {
        payload.output = contentText(result.content);
        payload.isError = result.isError;
      } else payload.status = 'unfinished';
      const events: HarnessEvent[] = [{ type: 'tool_call', toolName: tool.name, message: path, payload }];
      if (result && !result.isError) {
        const detailType = isRecord(result.detail) ? str(result.detail.type) : null;
        const kind = detailType === 'create' ? 'add' : 'update';
        events.push({ type: 'file_change', toolName: null, message: path, payload: { changes: [{ path, kind }] } });
      }
      return events;
    }
    // An MCP tool is reported by its own name and its server's, as codex reports one (mcp_tool_call).
    const mcp = mcpToolOf(tool.name);
    const payload: Record<string, unknown> = mcp ? { kind: 'mcp', server: mcp.server, input } : { kind: 'tool', input };
    if (result) {
      payload.output = contentText(result.content);
      payload.isError = result.isError;
    } else payload.status = 'unfinished';
    return [{ type: 'tool_call', toolName: mcp ? mcp.tool : tool.name, message: null, payload }];
  }

  /** Tool uses that never got a result (the turn ended first): reported with their input only. */
  flushPending(): HarnessEvent[] {
    const events = [...this.pending.values()].flatMap((tool) => this.toolCall(tool, null));
    this.pending.clear();
    return events;
  }

  private resultMessage(message: Record<string, unknown>): HarnessEvent[] {
    const usageRecord = isRecord(message.usage) ? message.usage : {};
    const usage: HarnessUsage = {
      inputTokens: num(usageRecord.input_tokens),
      outputTokens: num(usageRecord.output_tokens),
      cachedInputTokens: num(usageRecord.cache_read_input_tokens),
      reasoningOutputTokens: 0,
      costUsd: typeof message.total_cost_usd === 'number' ? turnCost(message.total_cost_usd, this.costBaseline) : null,
    };
    const events: HarnessEvent[] = [...this.flushPending()];
    events.push({
      type: 'usage',
      toolName: null,
      message: null,
      payload: {
        ...usage,
        cacheWriteInputTokens: num(usageRecord.cache_creation_input_tokens),
        numTurns: num(message.num_turns),
        durationMs: num(message.duration_ms),
      },
    });
    const subtype = str(message.subtype) ?? 'unknown';
    if (subtype === 'success' && message.is_error !== true) {
      this.result = { status: 'success', usage };
    } else {
      const errors = Array.isArray(message.errors) ? message.errors.filter((e): e is string => typeof e === 'string') : [];
      const detail = errors.length > 0 ? errors.join('; ') : (str(message.result) ?? 'the turn ended on an error');
      const error = describeProviderError(subtype === 'success' ? detail : `${subtype}: ${detail}`, this.providerUrl);
      this.result = { status: 'failed', error, usage };
      events.push({ type: 'error', toolName: null, message: error, payload: { fatal: true, source: 'result', subtype } });
    }
    return events;
  }
}

/** Claude Code's words for a provider it could not reach (its own, and Node's error codes). */
const UNREACHABLE = /Connection refused|Connection error|Unable to connect|fetch failed|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH/;

/** A failure to reach the provider names the provider; any other error is kept as it is. */
export function describeProviderError(error: string, providerUrl: string | null): string {
  return providerUrl !== null && UNREACHABLE.test(error) ? `claude-code could not reach the model provider at ${providerUrl}: ${error}` : error;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b) => (isRecord(b) && typeof b.text === 'string' ? b.text : ''))
    .filter((t) => t !== '')
    .join('\n');
}

export async function runClaudeCode(options: RunHarnessOptions): Promise<HarnessResult> {
  try {
    return await runClaudeCodeInner(options);
  } catch (error) {
    // A rejection of onEvent, carried out of the stream loop: the caller's own error.
    if (error instanceof SinkError) throw error.original;
    throw error;
  }
}

async function runClaudeCodeInner(options: RunHarnessOptions): Promise<HarnessResult> {
  const { signal, cwd } = options;
  if (signal.aborted) return { status: 'cancelled' };
  let env: Record<string, string>;
  try {
    env = claudeCodeEnv(options);
  } catch (error) {
    return { status: 'failed', error: `claude-code harness failed to run: ${errorText(error)}` };
  }
  const configDir = claudeConfigDir(env);
  const costBaseline = options.resumeThreadId && configDir !== null ? await sessionCostSoFar(configDir, options.resumeThreadId) : null;
  if (signal.aborted) return { status: 'cancelled' };
  const abortController = new AbortController();
  const onAbort = (): void => abortController.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  let stderrTail = '';
  const mapper = new ClaudeStreamMapper(options.treeRoot ?? cwd, { providerUrl: env.ANTHROPIC_BASE_URL || ANTHROPIC_API_ROOT, costBaseline });
  const mode = harnessModeOf(options.mode);
  const sink = new EventSink(options.onEvent, withMode('claude-code stream started', mode));
  let crash: string | null = null;
  const ran = (outcome: HarnessResult): HarnessResult => (sink.hasStarted && mapper.sessionId ? { ...outcome, threadId: mapper.sessionId } : outcome);
  // Stopped by us once its result was in and it did not exit: the turn is over, not crashed.
  let stoppedAfterResult = false;
  let exitAfterResult: NodeJS.Timeout | undefined;
  // A rejection of onEvent ends the run only once the CLI is gone (or its output given up on, as
  // for a cancel), so that the caller may remove the tree it worked in.
  let sinkFailure: SinkError | null = null;
  try {
    // Loaded at a run's first use, not with the service: a quarter of a CPU-second that every
    // start of sandboxes (and every process importing this package) would pay for a harness it may never run.
    const { query } = await import('@anthropic-ai/claude-agent-sdk');
    const stream = query({
      prompt: options.prompt,
      options: {
        cwd,
        env,
        abortController,
        // Nobody is there to approve tool use: edits are accepted and the usual tools pre-approved.
        // (bypassPermissions is refused by Claude Code when it runs as root, as sandboxes may.)
        permissionMode: mode.readOnly ? 'plan' : 'acceptEdits',
        allowedTools: [...ALLOWED_TOOLS, ...Object.keys(options.toolServers ?? {}).map((name) => `mcp__${name}`)],
        ...(options.toolServers ? { mcpServers: claudeToolServers(options.toolServers) } : {}),
        settingSources: [],
        ...(options.model ? { model: options.model } : {}),
        // The SDK passes `--resume=<id>`; without forkSession Claude Code continues under that same id.
        ...(options.resumeThreadId ? { resume: options.resumeThreadId } : {}),
        ...(options.executablePath ? { pathToClaudeCodeExecutable: options.executablePath } : {}),
        stderr: (data: string) => {
          stderrTail = (stderrTail + data).slice(-2000);
        },
      },
    });
    for await (const message of untilAbandoned(stream, abortController.signal, CLAUDE_OUTPUT_AFTER_STOP_MS)) {
      // onEvent refused an event: the CLI is being stopped, and what it still says is dropped.
      if (sinkFailure !== null) continue;
      try {
        const events = mapper.map(message);
        if (mapper.sessionStarted !== null && !sink.hasStarted) await sink.start(withMode(mapper.sessionStarted, mode));
        for (const e of events) await sink.emit(e);
      } catch (error) {
        if (!(error instanceof SinkError)) throw error;
        sinkFailure = error;
        abortController.abort();
        continue;
      }
      // The result is the turn's last message. A CLI that has sent it (an error result after its
      // retries were spent included) and still has not exited is stopped: a fresh CI run saw the run
      // stay streaming for 90 s after its result.
      if (mapper.result !== null && exitAfterResult === undefined) {
        exitAfterResult = setTimeout(() => {
          stoppedAfterResult = true;
          abortController.abort();
        }, CLAUDE_EXIT_AFTER_RESULT_MS);
      }
    }
    if (sinkFailure !== null) throw sinkFailure;
  } catch (error) {
    if (sinkFailure !== null) throw sinkFailure;
    if (error instanceof SinkError) throw error;
    if (signal.aborted) return ran({ status: 'cancelled' });
    if (!stoppedAfterResult) {
      const text = errorText(error);
      const tail = stderrTail.trim();
      crash = `claude-code harness crashed: ${text}${tail && !text.includes(tail.slice(-200)) ? ` (stderr: ${tail})` : ''}`;
    }
  } finally {
    clearTimeout(exitAfterResult);
    signal.removeEventListener('abort', onAbort);
  }
  if (signal.aborted) return ran({ status: 'cancelled' });
  const result = mapper.result;
  if (result === null || crash !== null) {
    const error =
      result !== null && result.status === 'failed' ? (result.error ?? 'failed') : (crash ?? 'claude-code harness crashed: its output ended without a result');
    if (sink.hasStarted) {
      for (const e of mapper.flushPending()) await sink.emit(e);
      if (result === null) await sink.emit({ type: 'error', toolName: null, message: error, payload: { fatal: true, source: 'harness' } });
    }
    return ran({ status: 'failed', error });
  }
  if (result.status === 'failed') return ran({ status: 'failed', error: result.error ?? 'failed', usage: result.usage });
  await sink.emit({ type: 'completed', toolName: null, message: 'success', payload: { status: 'success' } });
  return ran({ status: 'success', usage: result.usage });
}

/**
 * The messages of `stream` until it ends, or until `graceMs` after `stopped` aborts: then no more
 * are awaited (the pending read is left to settle on its own, its failure ignored).
 */
async function* untilAbandoned<T>(stream: AsyncIterable<T>, stopped: AbortSignal, graceMs: number): AsyncGenerator<T> {
  const iterator = stream[Symbol.asyncIterator]();
  let timer: NodeJS.Timeout | undefined;
  let ended = false;
  const abandoned = new Promise<'abandoned'>((resolve) => {
    const start = (): void => {
      timer = setTimeout(() => resolve('abandoned'), graceMs);
    };
    if (stopped.aborted) start();
    else stopped.addEventListener('abort', start, { once: true });
  });
  try {
    for (;;) {
      const next = iterator.next();
      const first = await Promise.race([next, abandoned]);
      if (first === 'abandoned') {
        next.catch(() => undefined);
        return;
      }
      if (first.done) {
        ended = true;
        return;
      }
      yield first.value;
    }
  } finally {
    clearTimeout(timer);
    // Left early (abandoned, or the reader stopped): the stream is closed as a for-await would, without waiting on it.
    if (!ended) void iterator.return?.()?.catch(() => undefined);
  }
}
