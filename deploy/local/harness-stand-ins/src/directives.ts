// The stand-in harnesses' script language: directives in the prompt, one per line. Other lines
// are ordinary prompt text. Shared by both stand-ins so they behave alike.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, normalize, relative, resolve, sep } from 'node:path';
// Types only: in an isolated sandbox the stand-ins have nothing of the project but their own built
// files and @ars/harness-thread-files (standInFiles, services/sandboxes/src/harness/standInPaths.ts),
// so they import no value from another package.
import type { FindingSeverity, ReportedFinding } from '@ars/contract';

export type Step =
  | { kind: 'say'; text: string }
  | { kind: 'tool'; name: string; input: Record<string, unknown> }
  | { kind: 'shell'; command: string }
  | { kind: 'write'; path: string; text: string }
  | { kind: 'sleep'; ms: number }
  | { kind: 'fail'; message: string }
  | { kind: 'model' }
  | { kind: 'recall' }
  | { kind: 'finding'; path: string; text: string; severity: FindingSeverity; message: string };

/** The script of a prompt without any directive: one message, one `ls`, success. */
export const DEFAULT_STEPS: readonly Step[] = [
  { kind: 'say', text: 'Looking at the working tree.' },
  { kind: 'shell', command: 'ls' },
];

/** `\n` stands for a newline and `\\` for a backslash in `@say` and `@write` text. */
export function unescapeText(text: string): string {
  return text.replace(/\\(n|\\)/g, (_m, c: string) => (c === 'n' ? '\n' : '\\'));
}

function parseLine(line: string): Step | null {
  const match = /^\s*@(say|tool|shell|write|sleep|fail|model|recall|finding)(?:\s+(.*))?$/.exec(line);
  if (!match) return null;
  const name = match[1] as string;
  const rest = (match[2] ?? '').trim();
  switch (name) {
    case 'say':
      return { kind: 'say', text: unescapeText(rest) };
    case 'tool': {
      const m = /^(\S+)(?:\s+(.*))?$/.exec(rest);
      if (!m) return null;
      const json = m[2]?.trim() ?? '';
      if (json === '') return { kind: 'tool', name: m[1] as string, input: {} };
      try {
        const input: unknown = JSON.parse(json);
        if (typeof input !== 'object' || input === null || Array.isArray(input)) return null;
        return { kind: 'tool', name: m[1] as string, input: input as Record<string, unknown> };
      } catch {
        return null;
      }
    }
    case 'shell':
      return rest === '' ? null : { kind: 'shell', command: rest };
    case 'write': {
      const m = /^(\S+)(?:\s(.*))?$/.exec(rest);
      if (!m) return null;
      return { kind: 'write', path: m[1] as string, text: unescapeText(m[2] ?? '') };
    }
    case 'sleep':
      return /^\d+$/.test(rest) ? { kind: 'sleep', ms: Number(rest) } : null;
    case 'fail':
      return { kind: 'fail', message: rest === '' ? 'the agent failed' : rest };
    case 'model':
      return rest === '' ? { kind: 'model' } : null;
    case 'recall':
      return rest === '' ? { kind: 'recall' } : null;
    case 'finding':
      return parseFinding(rest);
    default:
      return null;
  }
}

/**
 * The fence and severities of the findings format (@ars/contract: FINDINGS_FENCE,
 * FINDING_SEVERITIES), spelled here because the stand-ins cannot import values from it at run time;
 * directives.test.ts holds them equal.
 */
export const STANDIN_FINDINGS_FENCE = 'ars-findings';
export const STANDIN_FINDING_SEVERITIES: readonly FindingSeverity[] = ['critical', 'high', 'medium', 'low', 'info'];

/**
 * `@finding <path> <text> <severity> <message>`: `<path>` one word; `<text>` a JSON string when it
 * starts with `"` (so it may hold spaces), else one word; `<severity>` one of the findings format's;
 * `<message>` the rest of the line (`\n` and `\\` as in `@say`). Anything else: ordinary text.
 */
function parseFinding(rest: string): Step | null {
  const head = /^(\S+)\s+(.*)$/.exec(rest);
  if (!head) return null;
  const path = head[1] as string;
  let after = head[2] as string;
  let text: string;
  if (after.startsWith('"')) {
    const quoted = /^"(?:[^"\\]|\\.)*"/.exec(after);
    if (!quoted) return null;
    try {
      text = JSON.parse(quoted[0]) as string;
    } catch {
      return null;
    }
    after = after.slice(quoted[0].length);
    if (after !== '' && !/^\s/.test(after)) return null;
  } else {
    const word = /^(\S+)(.*)$/.exec(after);
    text = word?.[1] as string;
    after = word?.[2] ?? '';
  }
  const tail = /^\s+(\S+)\s+(.+)$/.exec(after);
  if (text === '' || !tail) return null;
  const severity = tail[1] as FindingSeverity;
  if (!STANDIN_FINDING_SEVERITIES.includes(severity)) return null;
  return { kind: 'finding', path, text, severity, message: unescapeText((tail[2] as string).trim()) };
}

/** The steps a prompt asks for; a prompt with none gets DEFAULT_STEPS. */
export function parseDirectives(prompt: string): Step[] {
  const steps: Step[] = [];
  for (const line of prompt.split(/\r?\n/)) {
    const step = parseLine(line);
    if (step) steps.push(step);
  }
  return steps.length > 0 ? steps : [...DEFAULT_STEPS];
}

/**
 * A `@write` or `@finding` path as a path inside the working tree, without knowing where the tree
 * is (the model stand-in does not): normalized, relative, `/`-separated; null when absolute or
 * escaping the tree.
 */
export function treePath(path: string): string | null {
  if (path === '' || isAbsolute(path) || path.includes('\0')) return null;
  const parts = normalize(path).split(sep);
  return parts.includes('..') ? null : parts.join('/');
}

/** Resolves a `@write` path inside the working tree; null when absolute or escaping it. */
export function resolveInTree(cwd: string, path: string): string | null {
  const inside = treePath(path);
  if (inside === null) return null;
  const full = resolve(cwd, inside);
  if (full !== cwd && !full.startsWith(cwd.endsWith(sep) ? cwd : cwd + sep)) return null;
  return full;
}

export interface WriteOutcome {
  ok: boolean;
  fullPath: string | null;
  kind: 'add' | 'update';
  error?: string;
}

/** `readOnly`: the run's mode forbids changes (codex `--sandbox read-only`, Claude Code plan mode): refused, nothing written. */
export async function writeInTree(cwd: string, path: string, text: string, readOnly = false): Promise<WriteOutcome> {
  const full = resolveInTree(cwd, path);
  if (!full) return { ok: false, fullPath: null, kind: 'add', error: `refused to write outside the working tree: ${path}` };
  const kind = existsSync(full) ? 'update' : 'add';
  if (readOnly) return { ok: false, fullPath: full, kind, error: `refused to write ${path}: this run is read-only` };
  try {
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, text, 'utf8');
    return { ok: true, fullPath: full, kind };
  } catch (error) {
    return { ok: false, fullPath: full, kind, error: error instanceof Error ? error.message : String(error) };
  }
}

/** What the agent says when a `@finding` names no line: the stand-in CLIs and the model stand-in say the same. */
export const FINDING_NOTES = {
  outside: (path: string): string => `@finding: ${path} is outside the working tree; no finding`,
  missing: (path: string): string => `@finding: ${path} is not in the working tree; no finding`,
  noLine: (path: string, text: string): string => `@finding: no line of ${path} contains ${JSON.stringify(text)}; no finding`,
};

export type FindingOutcome = { ok: true; finding: ReportedFinding } | { ok: false; message: string };

/**
 * A `@finding` located in the working tree: on the first line of the file that contains its text
 * (so it follows the code when lines shift), with that line, trimmed, as its anchor. A file that is
 * not there (or outside the tree) or a text on no line: `ok: false` and the agent's message saying so.
 */
export async function locateFinding(cwd: string, step: Extract<Step, { kind: 'finding' }>): Promise<FindingOutcome> {
  const full = resolveInTree(cwd, step.path);
  if (!full) return { ok: false, message: FINDING_NOTES.outside(step.path) };
  let content: string;
  try {
    content = await readFile(full, 'utf8');
  } catch {
    return { ok: false, message: FINDING_NOTES.missing(step.path) };
  }
  const lines = content.split(/\r?\n/);
  const index = lines.findIndex((line) => line.includes(step.text));
  if (index < 0) return { ok: false, message: FINDING_NOTES.noLine(step.path, step.text) };
  const path = relative(cwd, full).split(sep).join('/');
  const anchor = (lines[index] as string).trim();
  return { ok: true, finding: { path, line: index + 1, severity: step.severity, message: step.message, anchor } };
}

/**
 * Runs a `@finding` step: a finding located joins `findings` (said in the turn's final message);
 * otherwise the message saying why, for the agent to say at once (null when located).
 */
export async function collectFinding(cwd: string, step: Extract<Step, { kind: 'finding' }>, findings: ReportedFinding[]): Promise<string | null> {
  const outcome = await locateFinding(cwd, step);
  if (!outcome.ok) return outcome.message;
  findings.push(outcome.finding);
  return null;
}

/**
 * The final agent message of a prompt with `@finding`s: a sentence, then every finding located in
 * the findings format (one ```ars-findings block, a JSON array; `[]` when none was found).
 */
export function findingsMessage(findings: readonly ReportedFinding[]): string {
  return `Review done: ${findings.length} finding(s).\n\n\`\`\`${STANDIN_FINDINGS_FENCE}\n${JSON.stringify(findings, null, 2)}\n\`\`\``;
}

export interface ShellOutcome {
  exitCode: number;
  output: string;
}

/**
 * Runs the stand-ins' processes and timers so that stop() ends all of them at once: shell commands
 * run in their own process group, which stop() kills.
 */
export class StepRunner {
  private readonly children = new Set<ChildProcess>();
  private readonly timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  private stopped = false;

  constructor(private readonly cwd: string) {}

  shell(command: string): Promise<ShellOutcome> {
    return new Promise((resolvePromise) => {
      const chunks: Buffer[] = [];
      const child = spawn('/bin/sh', ['-c', command], {
        cwd: this.cwd,
        env: process.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      this.children.add(child);
      child.stdout?.on('data', (c: Buffer) => chunks.push(c));
      child.stderr?.on('data', (c: Buffer) => chunks.push(c));
      child.once('error', (error) => {
        this.children.delete(child);
        resolvePromise({ exitCode: 127, output: error.message });
      });
      child.once('close', (code, signal) => {
        this.children.delete(child);
        resolvePromise({ exitCode: code ?? (signal ? 128 + 15 : 1), output: Buffer.concat(chunks).toString('utf8') });
      });
    });
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolvePromise) => {
      const entry = {
        timer: setTimeout(() => {
          this.timers.delete(entry);
          resolvePromise();
        }, ms),
        resolve: resolvePromise,
      };
      this.timers.add(entry);
    });
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Kills every running shell (its whole process group) and cancels every timer. */
  stop(): void {
    this.stopped = true;
    for (const child of this.children) {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    this.children.clear();
    for (const entry of this.timers) {
      clearTimeout(entry.timer);
      entry.resolve();
    }
    this.timers.clear();
  }
}

/** Stops the runner and exits on SIGTERM/SIGINT/SIGHUP, as a CLI killed by its SDK would. */
export function exitOnSignals(runner: StepRunner): void {
  const codes: Record<string, number> = { SIGTERM: 143, SIGINT: 130, SIGHUP: 129 };
  for (const [signal, code] of Object.entries(codes)) {
    process.once(signal, () => {
      runner.stop();
      process.exit(code);
    });
  }
}

export function log(harness: string, message: string): void {
  process.stderr.write(`[${harness} stand-in] ${message}\n`);
}

/** Writes one JSON line to stdout, waiting when the pipe is full. */
export function emitLine(value: unknown): Promise<void> {
  return new Promise((resolvePromise) => {
    if (process.stdout.write(`${JSON.stringify(value)}\n`)) resolvePromise();
    else process.stdout.once('drain', () => resolvePromise());
  });
}

/** The inverse of unescapeText: a prompt of several lines on one line (`\\` first, then newlines as `\n`). */
export function escapeText(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\r?\n/g, '\\n');
}

export const NO_EARLIER_PROMPTS = 'no earlier prompts';

/**
 * What `@recall` answers: the prompts of the thread's earlier turns, oldest first, one per line
 * (each escaped by escapeText, so one prompt stays one line); `no earlier prompts` on a new thread.
 */
export function recallAnswer(earlierPrompts: readonly string[]): string {
  return earlierPrompts.length === 0 ? NO_EARLIER_PROMPTS : earlierPrompts.map(escapeText).join('\n');
}

/**
 * What `@model` answers: the model the stand-in was started with (the harness's `--model`), or
 * `(default)` when it was given none, so a test sees which model reached the harness.
 */
export function modelAnswer(model: string | null): string {
  return `model ${model ?? '(default)'}`;
}

/**
 * Deterministic, plausible token counts for the stand-ins' usage reports: input is a quarter of the
 * prompt's characters (rounded up, at least 1) plus 100, output 20 per step plus 10.
 */
export function fakeUsage(prompt: string, steps: readonly Step[]): { input: number; output: number } {
  return { input: Math.max(1, Math.ceil(prompt.length / 4)) + 100, output: 20 * steps.length + 10 };
}
