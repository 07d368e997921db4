// Shell commands codex ran without reporting them on its JSONL stream, recovered from the thread's
// rollout file (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<threadId>.jsonl`).
//
// Why: codex 0.163 prints no `command_execution` item for a command that failed to start (its
// own sandbox could not be set up, the call's arguments were refused, …): the failure is only in
// the tool output the model reads. Its classic tools (`exec_command` as a function, what it offers
// a model it has no metadata for) behave the same, so switching tools would not help; the rollout
// is the one place that always has the call and its output. In it, a command that did start has
// an `event_msg` `item_completed` `CommandExecution` record (between the call and its output, or
// later for one still running when the call returned); a call with none is reported from its
// `custom_tool_call` / `function_call` and `…_output` records.
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isRecord, str, type HarnessEvent } from './adapter.js';

/** Function tools that run a command (classic tools, and older codex versions' names). */
const COMMAND_FUNCTIONS = new Set(['exec_command', 'shell', 'shell_command', 'container.exec', 'local_shell']);

/** A code-mode script (the `exec` custom tool, JavaScript) that calls the nested command tool. */
const CODE_MODE_COMMAND = /\btools\s*(?:\.\s*exec_command\b|\[\s*["'`]exec_command["'`]\s*\])/;

/** Rollout event messages that mean a command process was started and reported. */
const COMMAND_EVENTS = new Set(['exec_command_begin', 'exec_command_end']);

/** Past this a rollout is not read: recovery is a best effort, not worth holding a huge file in memory. */
const MAX_ROLLOUT_BYTES = 64 * 1024 * 1024;

interface CommandCall {
  callId: string;
  /** The command as far as it can be read from the call (null: a script it could not be read from). */
  command: string | null;
  /** What the model sent: the function's arguments (parsed) or the code-mode script. */
  input: Record<string, unknown>;
  /** The call's raw input text, to look for the command lines of commands reported later. */
  rawInput: string;
  /** Command items seen while the call was open. */
  items: number;
}

/**
 * The `tool_call` events of the turn's command calls that codex reported no command item for, in
 * the rollout's order. `records`: the rollout's records of this turn (parsed JSON lines).
 */
export function unreportedCommands(records: readonly unknown[]): HarnessEvent[] {
  const open = new Map<string, CommandCall>();
  /** Calls closed with no command item, in order; one reported later (still running when its call returned) leaves the list. */
  const unreported: { call: CommandCall; output: string }[] = [];
  for (const record of records) {
    if (!isRecord(record) || !isRecord(record.payload)) continue;
    const payload = record.payload;
    if (record.type === 'response_item') {
      const call = commandCall(payload);
      if (call) open.set(call.callId, call);
      else if (payload.type === 'custom_tool_call_output' || payload.type === 'function_call_output') {
        const callId = str(payload.call_id) ?? '';
        const done = open.get(callId);
        if (!done) continue;
        open.delete(callId);
        if (done.items === 0) unreported.push({ call: done, output: outputText(payload.output) });
      }
    } else if (record.type === 'event_msg') {
      const command = reportedCommand(payload);
      if (command === null) continue;
      if (open.size > 0) {
        for (const call of open.values()) call.items += 1;
        continue;
      }
      // Reported with no call open: a command that was still running when its call returned.
      const late = unreported.findIndex(({ call }) => call.command === command);
      const owner = late >= 0 ? late : unreported.findIndex(({ call }) => command !== '' && mentions(call.rawInput, command));
      if (owner >= 0) unreported.splice(owner, 1);
    }
  }
  return unreported.map(({ call, output }) => ({
    type: 'tool_call',
    toolName: 'shell',
    message: call.command ?? str(call.input.script),
    payload: { kind: 'shell', input: call.input, exitCode: exitCodeIn(output), output, status: 'failed', source: 'rollout' },
  }));
}

function commandCall(payload: Record<string, unknown>): CommandCall | null {
  const callId = str(payload.call_id);
  if (callId === null) return null;
  if (payload.type === 'custom_tool_call' && payload.name === 'exec') {
    const script = str(payload.input) ?? '';
    if (!CODE_MODE_COMMAND.test(script)) return null;
    const command = commandInScript(script);
    return { callId, command, input: command === null ? { script } : { command, script }, rawInput: script, items: 0 };
  }
  if (payload.type === 'function_call' && COMMAND_FUNCTIONS.has(str(payload.name) ?? '')) {
    const raw = str(payload.arguments) ?? '';
    let args: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(raw);
      if (isRecord(parsed)) args = parsed;
    } catch {
      args = { arguments: raw };
    }
    const command = str(args.cmd) ?? str(args.command) ?? (Array.isArray(args.command) ? shellWords(args.command) : null);
    return { callId, command, input: command === null ? args : { ...args, command }, rawInput: raw, items: 0 };
  }
  return null;
}

/** The command line of a command item or event that codex did report (null: not a command). */
function reportedCommand(payload: Record<string, unknown>): string | null {
  if (payload.type === 'item_completed' && isRecord(payload.item) && payload.item.type === 'CommandExecution') {
    return commandLine(payload.item.command);
  }
  if (COMMAND_EVENTS.has(str(payload.type) ?? '')) return commandLine(payload.command);
  return null;
}

/** `["/bin/bash", "-lc", "ls"]` → `ls` (what the model asked for); a string as it is. */
function commandLine(command: unknown): string {
  if (typeof command === 'string') return command;
  if (!Array.isArray(command)) return '';
  const words = command.filter((w): w is string => typeof w === 'string');
  const shell = words.length === 3 && /^-l?c$/.test(words[1] as string) ? words[2] : undefined;
  return shell ?? words.join(' ');
}

function shellWords(command: unknown[]): string | null {
  const line = commandLine(command);
  return line === '' ? null : line;
}

/** Whether a call's input names this command (as written, or as a JSON/JS string literal writes it). */
function mentions(rawInput: string, command: string): boolean {
  return rawInput.includes(command) || rawInput.includes(JSON.stringify(command).slice(1, -1));
}

/**
 * The command a code-mode script passes to `tools.exec_command`: its string argument or its `cmd`
 * property, when written as a literal. Null when the script builds it some other way.
 */
export function commandInScript(script: string): string | null {
  const call = /exec_command\b\s*(?:["'`]\s*\])?\s*\(\s*/.exec(script);
  if (!call) return null;
  const rest = script.slice(call.index + call[0].length);
  const literal = /^(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`([^`\\$]*)`)/;
  const direct = literal.exec(rest);
  if (direct) return unquote(direct);
  const property = /^\{[^]*?["']?\bcmd["']?\s*:\s*/.exec(rest);
  if (!property) return null;
  const value = literal.exec(rest.slice(property[0].length));
  return value ? unquote(value) : null;
}

function unquote(match: RegExpExecArray): string {
  if (match[1] !== undefined) {
    try {
      const parsed: unknown = JSON.parse(`"${match[1]}"`);
      if (typeof parsed === 'string') return parsed;
    } catch {
      // Not a JSON string (a JavaScript-only escape): the text as written.
    }
    return match[1];
  }
  if (match[2] !== undefined) return match[2].replace(/\\(.)/g, '$1');
  return match[3] ?? '';
}

/** A tool output as text: codex writes a string, or a list of `{type: 'input_text', text}` items. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) {
    return output
      .map((item) => (typeof item === 'string' ? item : isRecord(item) ? (str(item.text) ?? '') : ''))
      .filter((t) => t !== '')
      .join('');
  }
  if (isRecord(output)) return outputText(output.content ?? output.output ?? '');
  return '';
}

/**
 * The exit code the output states, when it states exactly one: the classic tools write `Process
 * exited with code N`; a code-mode script's output holds the nested result (`"exit_code":N`) when it
 * printed it. Null otherwise.
 */
function exitCodeIn(output: string): number | null {
  const classic = /Process exited with code (-?\d+)/.exec(output);
  if (classic) return Number(classic[1]);
  const codes = [...output.matchAll(/\\*"exit_code\\*"\s*:\s*(-?\d+)/g)].map((m) => Number(m[1]));
  return codes.length === 1 ? (codes[0] as number) : null;
}

/** The thread's rollout file under CODEX_HOME (newest first when several end in its id), or null. */
export async function findRollout(codexHome: string, threadId: string): Promise<string | null> {
  const suffix = `-${threadId}.jsonl`;
  const sessions = join(codexHome, 'sessions');
  const found: { path: string; mtimeMs: number }[] = [];
  // sessions/YYYY/MM/DD/: three levels of folders, newest names first.
  const walk = async (dir: string, depth: number): Promise<void> => {
    let names: string[];
    try {
      names = (await readdir(dir)).sort().reverse();
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      if (depth < 3) await walk(path, depth + 1);
      else if (name.startsWith('rollout-') && name.endsWith(suffix)) {
        try {
          const info = await stat(path);
          if (info.isFile()) found.push({ path, mtimeMs: info.mtimeMs });
        } catch {
          // Gone meanwhile.
        }
      }
    }
  };
  await walk(sessions, 0);
  found.sort((a, b) => b.mtimeMs - a.mtimeMs);
  return found[0]?.path ?? null;
}

/** Where a rollout ends now: a resumed thread's records of this turn start there. */
export async function rolloutSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/** The rollout's records from byte `from` to `to` (default: its end); a line that is not JSON is skipped. */
export async function readRolloutRecords(path: string, from: number, to?: number): Promise<unknown[]> {
  const handle = await open(path, 'r');
  try {
    const size = Math.min((await handle.stat()).size, to ?? Number.MAX_SAFE_INTEGER);
    if (size <= from || size - from > MAX_ROLLOUT_BYTES) return [];
    const buffer = Buffer.alloc(size - from);
    await handle.read(buffer, 0, buffer.length, from);
    const records: unknown[] = [];
    for (const line of buffer.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      try {
        records.push(JSON.parse(line));
      } catch {
        // A line cut short or not JSON: not a record.
      }
    }
    return records;
  } finally {
    await handle.close();
  }
}

/**
 * A thread's token counts (codex's names). Codex's `turn.completed` `usage` holds the thread's
 * totals so far, not the turn's: a resumed thread's turn is counted from the totals its rollout
 * held before (its last `event_msg` `token_count` `info.total_token_usage`; codex itself rebuilds
 * the totals from the rollout on resume).
 */
export interface CodexTokenTotals {
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
}

export function tokenTotals(value: unknown): CodexTokenTotals {
  const usage = isRecord(value) ? value : {};
  return {
    input_tokens: count(usage.input_tokens),
    cached_input_tokens: count(usage.cached_input_tokens),
    cache_write_input_tokens: count(usage.cache_write_input_tokens),
    output_tokens: count(usage.output_tokens),
    reasoning_output_tokens: count(usage.reasoning_output_tokens),
  };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** The last token totals a rollout's records hold; null when none (a new thread, a stand-in's rollout). */
export function tokenTotalsIn(records: readonly unknown[]): CodexTokenTotals | null {
  for (let i = records.length - 1; i >= 0; i -= 1) {
    const record = records[i];
    if (!isRecord(record) || record.type !== 'event_msg' || !isRecord(record.payload)) continue;
    const { payload } = record;
    if (payload.type === 'token_count' && isRecord(payload.info) && isRecord(payload.info.total_token_usage)) {
      return tokenTotals(payload.info.total_token_usage);
    }
  }
  return null;
}

/** What the totals grew by since `baseline` (never below 0: totals that restarted count whole). */
export function turnTokens(totals: CodexTokenTotals, baseline: CodexTokenTotals | null): CodexTokenTotals {
  if (baseline === null) return totals;
  const restarted = (Object.keys(totals) as (keyof CodexTokenTotals)[]).some((key) => totals[key] < baseline[key]);
  if (restarted) return totals;
  return {
    input_tokens: totals.input_tokens - baseline.input_tokens,
    cached_input_tokens: totals.cached_input_tokens - baseline.cached_input_tokens,
    cache_write_input_tokens: totals.cache_write_input_tokens - baseline.cache_write_input_tokens,
    output_tokens: totals.output_tokens - baseline.output_tokens,
    reasoning_output_tokens: totals.reasoning_output_tokens - baseline.reasoning_output_tokens,
  };
}
