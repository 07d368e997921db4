// The codex adapter: drives a Codex CLI (real, or the stand-in) through `@openai/codex-sdk` and maps
// its ThreadEvents to HarnessEvents (table in README.md).
import type { ChildProcess } from 'node:child_process';
import diagnosticsChannel from 'node:diagnostics_channel';
import { basename } from 'node:path';
import { Codex } from '@openai/codex-sdk';
import { codexHome, codexOptions, codexRunSettings } from './codexConfig.js';
import {
  findRollout,
  readRolloutRecords,
  rolloutSize,
  tokenTotals,
  tokenTotalsIn,
  turnTokens,
  unreportedCommands,
  type CodexTokenTotals,
} from './codexRollout.js';
import { harnessModeOf, withMode } from './runModes.js';
import {
  EventSink,
  SinkError,
  errorText,
  isRecord,
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
  /** The model API codex was sent to, named in a failure to reach it. */
  providerUrl: string | null;
  /** Command items started and not completed (by item id): the latest state of each. */
  runningCommands: Map<string, Record<string, unknown>>;
  /** The thread's token totals before this turn (see CodexTokenTotals). */
  usageBaseline: CodexTokenTotals | null;
}

export function newTurnState(options: { providerUrl?: string | null; usageBaseline?: CodexTokenTotals | null } = {}): TurnState {
  return {
    failure: null,
    lastError: null,
    heldError: null,
    completed: false,
    usage: undefined,
    providerUrl: options.providerUrl ?? null,
    runningCommands: new Map(),
    usageBaseline: options.usageBaseline ?? null,
  };
}

/**
 * The failure as the run reports it: codex says only "Connection failed: error sending request"
 * when the provider cannot be reached, so the provider's address is added.
 */
export function describeTurnFailure(message: string, providerUrl: string | null): string {
  // Only a connection that could not be made: a stream the provider cut off mid-answer did reach it.
  if (providerUrl !== null && /^(Connection failed|error sending request)/i.test(message)) {
    return `codex could not reach the model provider at ${providerUrl}: ${message}`;
  }
  return message;
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
    const raw = (isRecord(event.error) ? str(event.error.message) : null) ?? 'the turn failed';
    const message = describeTurnFailure(raw, state.providerUrl);
    state.failure = message;
    // The CLI prints an `error` event and then `turn.failed` with the same message: one fatal event.
    const before = state.heldError !== null && state.heldError !== raw ? [streamError(state.heldError)] : [];
    state.heldError = null;
    return [...before, { type: 'error', toolName: null, message, payload: { fatal: true, source: 'turn.failed' } }];
  }
  const before = flushCodexState(state);
  switch (event.type) {
    case 'turn.completed': {
      // Codex reports the thread's totals so far; the turn's own are what they grew by.
      const usage = turnTokens(tokenTotals(event.usage), state.usageBaseline);
      state.completed = true;
      state.usage = {
        inputTokens: usage.input_tokens,
        outputTokens: usage.output_tokens,
        cachedInputTokens: usage.cached_input_tokens,
        reasoningOutputTokens: usage.reasoning_output_tokens,
        costUsd: null,
      };
      return [
        ...before,
        {
          type: 'usage',
          toolName: null,
          message: null,
          payload: { ...state.usage, cacheWriteInputTokens: usage.cache_write_input_tokens },
        },
      ];
    }
    case 'error': {
      const message = str(event.message) ?? 'error';
      state.lastError = message;
      state.heldError = message;
      return before;
    }
    case 'item.started':
    case 'item.updated':
      // Remembered so that a command still running when the turn ends is reported all the same.
      if (isRecord(event.item) && event.item.type === 'command_execution') state.runningCommands.set(str(event.item.id) ?? '', event.item);
      return before;
    case 'item.completed':
      if (isRecord(event.item)) state.runningCommands.delete(str(event.item.id) ?? '');
      return [...before, ...(isRecord(event.item) ? mapCompletedItem(event.item, cwd) : [])];
    default:
      // turn.started and unknown events: nothing to record.
      return before;
  }
}

/**
 * Commands started and never completed on the stream (codex stops printing at the turn's end and
 * kills them): reported with what was seen of them, `status: 'unfinished'`.
 */
export function flushUnfinishedCommands(state: TurnState): HarnessEvent[] {
  const events = [...state.runningCommands.values()].map((item) => {
    const call = shellToolCall(item);
    return { ...call, payload: { ...call.payload, status: 'unfinished' } };
  });
  state.runningCommands.clear();
  return events;
}

/** The words of a POSIX shell line (quotes and backslashes as sh reads them); null for anything else (`$`, `;`, a bad quote…). */
function shellWords(line: string): string[] | null {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === ' ' || c === '\t') {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return null;
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let text = '';
      for (i++; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === '\\' && '"\\$`'.includes(line[i + 1] ?? '')) i++;
        else if (line[i] === '$' || line[i] === '`') return null;
        text += line[i];
      }
      if (i >= line.length) return null;
      word = (word ?? '') + text;
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else if (/[A-Za-z0-9_\-./=:,@%+]/.test(c)) {
      word = (word ?? '') + c;
    } else return null;
  }
  if (word !== null) words.push(word);
  return words;
}

/**
 * The command the agent asked for: codex reports each one as the shell line it ran it with,
 * `/bin/bash -lc '<command>'`; the command inside is what the agent wrote (and what the stand-in
 * CLI reports). Anything that is not exactly that shape is kept as it is.
 */
export function agentCommand(reported: string): string {
  const words = shellWords(reported);
  if (words?.length === 3 && /^(\/(usr\/)?bin\/)?(ba|z)?sh$/.test(words[0] as string) && /^-l?c$/.test(words[1] as string)) return words[2] as string;
  return reported;
}

function shellToolCall(item: Record<string, unknown>): HarnessEvent {
  const exitCode = typeof item.exit_code === 'number' ? item.exit_code : null;
  const reported = str(item.command);
  const command = reported === null ? null : agentCommand(reported);
  return {
    type: 'tool_call',
    toolName: 'shell',
    message: command,
    payload: { kind: 'shell', input: { command }, exitCode, output: str(item.aggregated_output) ?? '', status: str(item.status) },
  };
}

function mapCompletedItem(item: Record<string, unknown>, cwd: string): HarnessEvent[] {
  const status = str(item.status);
  switch (item.type) {
    case 'agent_message':
      return [{ type: 'assistant_message', toolName: null, message: str(item.text) ?? '', payload: {} }];
    case 'reasoning':
      return [{ type: 'reasoning', toolName: null, message: str(item.text) ?? '', payload: {} }];
    case 'command_execution':
      return [shellToolCall(item)];
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
  let settings: ReturnType<typeof codexRunSettings>;
  try {
    settings = codexRunSettings(options, mode);
  } catch (error) {
    return { status: 'failed', error: `codex harness failed to run: ${errorText(error)}` };
  }
  const codex = new Codex(codexOptions(settings, options.executablePath));
  // resumeThread makes the SDK run `codex exec … resume <id>`.
  const thread = options.resumeThreadId ? codex.resumeThread(options.resumeThreadId, settings.threadOptions) : codex.startThread(settings.threadOptions);
  const sink = new EventSink(options.onEvent, withMode('codex stream started', mode));
  const home = codexHome(settings.env);
  // A resumed thread's rollout grows by this turn's records: only those are read afterwards. Its
  // token totals so far are what this turn's usage is counted from.
  const resumedRollout = home !== null && options.resumeThreadId ? await findRollout(home, options.resumeThreadId) : null;
  const resumedFrom = resumedRollout !== null ? { path: resumedRollout, size: await rolloutSize(resumedRollout) } : null;
  const usageBaseline = resumedFrom !== null ? tokenTotalsIn(await readRolloutRecords(resumedFrom.path, 0, resumedFrom.size).catch(() => [])) : null;
  const state = newTurnState({ providerUrl: settings.providerUrl, usageBaseline });
  // The id `thread.started` named (the SDK keeps it as thread.id): the thread the caller can resume.
  let startedThreadId: string | null = null;
  const ran = (result: HarnessResult): HarnessResult => (startedThreadId !== null ? { ...result, threadId: startedThreadId } : result);
  // The usage event waits for the end of the stream, so that commands recovered from the rollout
  // come before it, as they happened.
  const held: HarnessEvent[] = [];
  let crash: string | null = null;
  const unguard = guardStdin(options.executablePath ?? '');
  // The CLI is stopped by a cancel, or by a rejection of onEvent; the latter ends the run only once
  // the CLI has exited (the SDK's stream ends with its process), so that the caller may remove the
  // tree it worked in.
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) stop.abort();
  let sinkFailure: SinkError | null = null;
  try {
    const { events } = await thread.runStreamed(options.prompt, { signal: stop.signal });
    for await (const event of events) {
      if (sinkFailure !== null) continue;
      try {
        const mapped = mapCodexEvent(event, options.treeRoot ?? cwd, state);
        if (mapped === 'start') {
          startedThreadId = thread.id;
          await sink.start(withMode(`codex thread ${thread.id ?? '(unnamed)'} started`, mode));
          continue;
        }
        for (const e of mapped) {
          if (e.type === 'usage') held.push(e);
          else await sink.emit(e);
        }
      } catch (error) {
        if (!(error instanceof SinkError)) throw error;
        sinkFailure = error;
        stop.abort();
      }
    }
    if (sinkFailure !== null) throw sinkFailure;
    for (const e of flushCodexState(state)) await sink.emit(e);
  } catch (error) {
    if (sinkFailure !== null) throw sinkFailure;
    if (error instanceof SinkError) throw error;
    if (signal.aborted) return ran({ status: 'cancelled', ...(state.usage ? { usage: state.usage } : {}) });
    crash = describeCrash(errorText(error));
    if (state.lastError !== null) crash += ` (last error: ${state.lastError})`;
    if (sink.hasStarted) for (const e of flushCodexState(state)) await sink.emit(e);
  } finally {
    signal.removeEventListener('abort', onAbort);
    unguard();
  }
  if (signal.aborted) return ran({ status: 'cancelled' });
  if (sink.hasStarted) {
    for (const e of flushUnfinishedCommands(state)) await sink.emit(e);
    if (home !== null && startedThreadId !== null) {
      for (const e of await recoverUnreportedCommands(home, startedThreadId, resumedFrom)) await sink.emit(e);
    }
    for (const e of held) await sink.emit(e);
  }
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

/**
 * The turn's commands codex did not report (codexRollout.ts), read from the thread's rollout once
 * the CLI has exited (the file is complete then). A rollout that cannot be read (a HOME elsewhere,
 * as in a Pod) recovers nothing; the run goes on.
 */
async function recoverUnreportedCommands(home: string, threadId: string, resumedFrom: { path: string; size: number } | null): Promise<HarnessEvent[]> {
  try {
    const path = await findRollout(home, threadId);
    if (path === null) return [];
    const from = resumedFrom !== null && resumedFrom.path === path ? resumedFrom.size : 0;
    return unreportedCommands(await readRolloutRecords(path, from));
  } catch {
    return [];
  }
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
