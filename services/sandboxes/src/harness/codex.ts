// The codex adapter: drives a Codex CLI (real, or the stand-in) through `@openai/codex-sdk` and maps
// its ThreadEvents to HarnessEvents (table in README.md).
import type { ChildProcess } from 'node:child_process';
import diagnosticsChannel from 'node:diagnostics_channel';
import { basename } from 'node:path';
import { Codex } from '@openai/codex-sdk';
import { harnessModeOf, withMode } from './runModes.js';
import {
  EventSink,
  SinkError,
  errorText,
  isRecord,
  num,
  pathInTree,
  str,
  type HarnessEvent,
  type HarnessResult,
  type HarnessUsage,
  type RunHarnessOptions,
} from './adapter.js';

interface TurnState {
  /** The turn.failed message: the agent's failure. */
  failure: string | null;
  /** The last top-level `error` event (the CLI also sends them for retries, e.g. "Reconnecting..."). */
  lastError: string | null;
  /** An `error` event held back: when `turn.failed` with the same message follows, they are one fatal event. */
  heldError: string | null;
  completed: boolean;
  usage: HarnessUsage | undefined;
}

export function newTurnState(): TurnState {
  return { failure: null, lastError: null, heldError: null, completed: false, usage: undefined };
}

function streamError(message: string): HarnessEvent {
  return { type: 'error', toolName: null, message, payload: { fatal: false, source: 'error' } };
}

/** Events still held back when the stream ends. */
export function flushCodexState(state: TurnState): HarnessEvent[] {
  const held = state.heldError;
  state.heldError = null;
  return held === null ? [] : [streamError(held)];
}

/** Maps one ThreadEvent (parsed JSON of unknown shape) to HarnessEvents; updates the turn state. */
export function mapCodexEvent(event: unknown, cwd: string, state: TurnState): HarnessEvent[] | 'start' {
  if (!isRecord(event)) return [];
  if (event.type === 'thread.started') return 'start';
  if (event.type === 'turn.failed') {
    const message = (isRecord(event.error) ? str(event.error.message) : null) ?? 'the turn failed';
    state.failure = message;
    // The CLI prints an `error` event and then `turn.failed` with the same message: one fatal event.
    const before = state.heldError !== null && state.heldError !== message ? [streamError(state.heldError)] : [];
    state.heldError = null;
    return [...before, { type: 'error', toolName: null, message, payload: { fatal: true, source: 'turn.failed' } }];
  }
  const before = flushCodexState(state);
  switch (event.type) {
    case 'turn.completed': {
      const usage = isRecord(event.usage) ? event.usage : {};
      state.completed = true;
      state.usage = {
        inputTokens: num(usage.input_tokens),
        outputTokens: num(usage.output_tokens),
        cachedInputTokens: num(usage.cached_input_tokens),
        reasoningOutputTokens: num(usage.reasoning_output_tokens),
        costUsd: null,
      };
      return [
        ...before,
        {
          type: 'usage',
          toolName: null,
          message: null,
          payload: { ...state.usage, cacheWriteInputTokens: num(usage.cache_write_input_tokens) },
        },
      ];
    }
    case 'error': {
      const message = str(event.message) ?? 'error';
      state.lastError = message;
      state.heldError = message;
      return before;
    }
    case 'item.completed':
      return [...before, ...(isRecord(event.item) ? mapCompletedItem(event.item, cwd) : [])];
    default:
      // turn.started, item.started, item.updated and unknown events: nothing to record.
      return before;
  }
}

function mapCompletedItem(item: Record<string, unknown>, cwd: string): HarnessEvent[] {
  const status = str(item.status);
  switch (item.type) {
    case 'agent_message':
      return [{ type: 'assistant_message', toolName: null, message: str(item.text) ?? '', payload: {} }];
    case 'reasoning':
      return [{ type: 'reasoning', toolName: null, message: str(item.text) ?? '', payload: {} }];
    case 'command_execution': {
      const exitCode = typeof item.exit_code === 'number' ? item.exit_code : null;
      return [
        {
          type: 'tool_call',
          toolName: 'shell',
          message: str(item.command),
          payload: { kind: 'shell', input: { command: str(item.command) }, exitCode, output: str(item.aggregated_output) ?? '', status },
        },
      ];
    }
    case 'file_change': {
      const changes = (Array.isArray(item.changes) ? item.changes : [])
        .filter(isRecord)
        .map((c) => ({ path: pathInTree(cwd, str(c.path) ?? ''), kind: str(c.kind) ?? 'update' }));
      const paths = changes.map((c) => c.path).join(', ');
      const events: HarnessEvent[] = [
        { type: 'tool_call', toolName: 'apply_patch', message: paths, payload: { kind: 'file_edit', input: { changes }, status } },
      ];
      if (status !== 'failed') events.push({ type: 'file_change', toolName: null, message: paths, payload: { changes } });
      return events;
    }
    case 'mcp_tool_call': {
      const tool = str(item.tool) ?? 'unknown';
      const payload: Record<string, unknown> = { kind: 'mcp', server: str(item.server), input: item.arguments ?? null, status };
      if (item.result !== undefined) payload.result = item.result;
      if (isRecord(item.error)) payload.error = str(item.error.message);
      return [{ type: 'tool_call', toolName: tool, message: null, payload }];
    }
    case 'web_search':
      return [{ type: 'tool_call', toolName: 'web_search', message: str(item.query), payload: { kind: 'web_search', input: { query: str(item.query) } } }];
    case 'error':
      return [{ type: 'error', toolName: null, message: str(item.message) ?? 'error', payload: { fatal: false, source: 'item' } }];
    default:
      // todo_list and unknown item types.
      return [];
  }
}

/**
 * The codex SDK writes the prompt to the CLI's stdin without an 'error' listener: a CLI that exits
 * before reading it (a crash at start) makes that write fail with EPIPE, an uncaught exception that
 * would take the whole service down. While a codex run is active, the stdin of every child spawned
 * from a guarded path gets a listener; the crash itself is still reported through the exit code.
 */
const guardedPaths = new Map<string, number>();
let guardSubscribed = false;

function guardStdin(path: string): () => void {
  if (!guardSubscribed) {
    guardSubscribed = true;
    diagnosticsChannel.subscribe('child_process', (message) => {
      const child = (message as { process?: ChildProcess }).process;
      if (!child) return;
      // Published from the constructor, before spawn() sets stdio; the EPIPE arrives on a later tick.
      process.nextTick(() => {
        const file = child.spawnfile;
        if (typeof file !== 'string' || !(guardedPaths.has(file) || (guardedPaths.has('') && /^codex(\.exe)?$/.test(basename(file))))) return;
        child.stdin?.on('error', () => undefined);
      });
    });
  }
  guardedPaths.set(path, (guardedPaths.get(path) ?? 0) + 1);
  return () => {
    const count = (guardedPaths.get(path) ?? 1) - 1;
    if (count <= 0) guardedPaths.delete(path);
    else guardedPaths.set(path, count);
  };
}

export async function runCodex(options: RunHarnessOptions): Promise<HarnessResult> {
  try {
    return await runCodexInner(options);
  } catch (error) {
    // A rejection of onEvent, carried out of the stream loop: the caller's own error.
    if (error instanceof SinkError) throw error.original;
    throw error;
  }
}

async function runCodexInner(options: RunHarnessOptions): Promise<HarnessResult> {
  const { signal, cwd } = options;
  const mode = harnessModeOf(options.mode);
  if (signal.aborted) return { status: 'cancelled' };
  const codex = new Codex({
    ...(options.executablePath ? { codexPathOverride: options.executablePath } : {}),
    env: options.env,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
  });
  const threadOptions = {
    workingDirectory: cwd,
    skipGitRepoCheck: true,
    sandboxMode: mode.readOnly ? 'read-only' : 'workspace-write',
    approvalPolicy: 'never',
    ...(options.model ? { model: options.model } : {}),
  } as const;
  // resumeThread makes the SDK run `codex exec … resume <id>`.
  const thread = options.resumeThreadId ? codex.resumeThread(options.resumeThreadId, threadOptions) : codex.startThread(threadOptions);
  const sink = new EventSink(options.onEvent, withMode('codex stream started', mode));
  const state = newTurnState();
  // The id `thread.started` named (the SDK keeps it as thread.id): the thread the caller can resume.
  let startedThreadId: string | null = null;
  const ran = (result: HarnessResult): HarnessResult => (startedThreadId !== null ? { ...result, threadId: startedThreadId } : result);
  let crash: string | null = null;
  const unguard = guardStdin(options.executablePath ?? '');
  try {
    const { events } = await thread.runStreamed(options.prompt, { signal });
    for await (const event of events) {
      const mapped = mapCodexEvent(event, options.treeRoot ?? cwd, state);
      if (mapped === 'start') {
        startedThreadId = thread.id;
        await sink.start(withMode(`codex thread ${thread.id ?? '(unnamed)'} started`, mode));
        continue;
      }
      for (const e of mapped) await sink.emit(e);
    }
    for (const e of flushCodexState(state)) await sink.emit(e);
  } catch (error) {
    if (error instanceof SinkError) throw error;
    if (signal.aborted) return ran({ status: 'cancelled', ...(state.usage ? { usage: state.usage } : {}) });
    crash = describeCrash(errorText(error));
    if (state.lastError !== null) crash += ` (last error: ${state.lastError})`;
    if (sink.hasStarted) for (const e of flushCodexState(state)) await sink.emit(e);
  } finally {
    unguard();
  }
  if (signal.aborted) return ran({ status: 'cancelled' });
  // A turn the agent failed: the CLI exits non-zero after `turn.failed`; the agent's message is the error.
  if (state.failure !== null) return ran({ status: 'failed', error: state.failure });
  if (crash === null && !state.completed) {
    crash = `codex harness crashed: its output ended without turn.completed${state.lastError !== null ? ` (last error: ${state.lastError})` : ''}`;
  }
  if (crash !== null) {
    // Reported as an event only when the stream had started; the result carries it either way.
    if (sink.hasStarted) {
      await sink.emit({ type: 'error', toolName: null, message: crash, payload: { fatal: true, source: 'harness' } });
    }
    return ran({ status: 'failed', error: crash });
  }
  await sink.emit({ type: 'completed', toolName: null, message: 'success', payload: { status: 'success' } });
  return ran({ status: 'success', ...(state.usage ? { usage: state.usage } : {}) });
}

function describeCrash(full: string): string {
  // The SDK appends the CLI's whole stderr; keep the start and the tail.
  const sdkMessage = full.length > 1500 ? `${full.slice(0, 500)} … ${full.slice(-1000)}` : full;
  if (sdkMessage.startsWith('Failed to parse item')) {
    return `codex harness crashed: it printed output that is not its JSONL protocol (${sdkMessage})`;
  }
  if (sdkMessage.startsWith('Codex Exec exited')) return `codex harness crashed: ${sdkMessage.trim().replace(/:$/, ' (nothing on stderr)')}`;
  return `codex harness failed to run: ${sdkMessage}`;
}
