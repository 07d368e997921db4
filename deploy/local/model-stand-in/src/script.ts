// What the model answers, whatever the API: the prompt's directives (the stand-in CLIs' script
// language, @ars/harness-stand-ins) played as a model plays them. The model is stateless: every
// request carries the whole conversation, so where the script stands is counted from the tool
// results already in it, and the steps before that point are replayed silently.
import type { ReportedFinding } from '@ars/contract';
import { FINDING_NOTES, fakeUsage, findingsMessage, modelAnswer, parseDirectives, recallAnswer, treePath, type Step } from '@ars/harness-stand-ins';

/** A tool call the model asks the CLI for; each API spells it in its own tools. */
export type ToolCall =
  | { kind: 'shell'; command: string }
  /** `path`: relative to the working tree, normalized (`treePath`). */
  | { kind: 'write'; path: string; text: string }
  | { kind: 'tool'; name: string; input: Record<string, unknown> };

export type Action =
  | { kind: 'say'; text: string }
  | { kind: 'sleep'; ms: number }
  /** Always the answer's last action: the CLI runs it and asks again with its result. */
  | { kind: 'call'; call: ToolCall }
  /** Always the answer's last action: the turn ends with this provider error. */
  | { kind: 'fail'; message: string };

export interface TurnState {
  /** The prompt of this turn: the last message the user typed (not the CLI's own context). */
  prompt: string;
  /** The prompts of the thread's earlier turns, oldest first (what `@recall` lists). */
  earlierPrompts: readonly string[];
  /** The model the request names (what `@model` answers). */
  model: string;
  /** What each of this turn's finished tool calls gave back, oldest first. */
  toolOutputs: readonly string[];
}

export interface Answer {
  actions: Action[];
  /** Token usage of this answer (one API response), by the stand-ins' rule over the steps it plays. */
  usage: { input: number; output: number };
}

/**
 * Claude Code answers a turn's last model answer that has no text with a nudge ("[Your previous
 * response had no visible output …]") and asks again, so under the Messages API a last answer
 * without a word (a script ending with a tool call, or with nothing to say) closes with this.
 */
export const CLOSING_MESSAGE = 'Done.';

/** What an answer says when the conversation holds no prompt at all (no directive can be read). */
export const NO_PROMPT_ANSWER = 'There is no prompt in this conversation.';

// @finding: a model cannot read the working tree, so it has the CLI look, as a real model would:
// grep's first matching line (`<n>:<line>`), or grep's exit status when there is none (1: no such
// line; 2: no such file).
const NO_MATCH = '@finding: grep exit';

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The command that finds the first line of `path` containing `text` (a fixed string), for `readProbe`. */
export function findingProbe(path: string, text: string): string {
  return `grep -n -F -m1 -e ${shellQuote(text)} -- ${shellQuote(path)} || echo "${NO_MATCH} $?"`;
}

export type ProbeResult = { line: number; text: string } | 'missing' | 'no-line';

/**
 * Reads the probe's answer out of a tool result, whatever the CLI wrapped around the output (codex
 * adds `Output:` headers; no header line starts with digits and a colon). Anything else (the file
 * is not there or not readable, or the command did not run): `missing`, as far as the agent can tell.
 */
export function readProbe(output: string): ProbeResult {
  const at = /^(\d+):(.*)$/m.exec(output);
  if (at) return { line: Number(at[1]), text: at[2] ?? '' };
  return output.includes(`${NO_MATCH} 1`) ? 'no-line' : 'missing';
}

type FindingStep = Extract<Step, { kind: 'finding' }>;

/** The tool call a step needs, or null when the model answers it alone (or refuses it: `note`). */
function callOf(step: Step): { call: ToolCall } | { note: string } | null {
  switch (step.kind) {
    case 'shell':
      return { call: { kind: 'shell', command: step.command } };
    case 'write': {
      const path = treePath(step.path);
      // A model that keeps to the working tree: never asks a CLI to write outside it.
      return path === null ? { note: `@write: refused to write outside the working tree: ${step.path}` } : { call: { kind: 'write', path, text: step.text } };
    }
    case 'tool':
      return { call: { kind: 'tool', name: step.name, input: step.input } };
    case 'finding': {
      const path = treePath(step.path);
      return path === null ? { note: FINDING_NOTES.outside(step.path) } : { call: { kind: 'shell', command: findingProbe(path, step.text) } };
    }
    default:
      return null;
  }
}

/** A finding from its probe's result, or the note saying why there is none. */
function findingFrom(step: FindingStep, output: string): { finding: ReportedFinding } | { note: string } {
  const path = treePath(step.path) ?? step.path;
  const result = readProbe(output);
  if (result === 'missing') return { note: FINDING_NOTES.missing(step.path) };
  if (result === 'no-line') return { note: FINDING_NOTES.noLine(step.path, step.text) };
  return { finding: { path, line: result.line, severity: step.severity, message: step.message, anchor: result.text.trim() } };
}

/**
 * The next answer of the turn. The steps whose tool calls already have results are replayed
 * without a word (only a `@finding`'s result is read again, so the final findings message has
 * them all); then every step is answered in order up to the next tool call (which ends the
 * answer), a `@fail`, or the script's end (the final findings message when it has `@finding`s).
 */
export function planAnswer(state: TurnState): Answer {
  const steps = parseDirectives(state.prompt);
  const played: Step[] = [];
  const actions: Action[] = [];
  const findings: ReportedFinding[] = [];
  const finish = (): Answer => ({ actions, usage: fakeUsage(state.prompt, played) });
  let results = 0;
  for (const step of steps) {
    const needs = callOf(step);
    if (results < state.toolOutputs.length) {
      if (needs === null || 'note' in needs) continue;
      const output = state.toolOutputs[results] ?? '';
      results += 1;
      const outcome = step.kind === 'finding' ? findingFrom(step, output) : null;
      if (outcome !== null && 'finding' in outcome) findings.push(outcome.finding);
      // The result just came back: what it calls for is said now, at the head of this answer.
      if (results === state.toolOutputs.length && outcome !== null && 'note' in outcome) actions.push({ kind: 'say', text: outcome.note });
      continue;
    }
    played.push(step);
    if (needs !== null) {
      if ('note' in needs) {
        actions.push({ kind: 'say', text: needs.note });
        continue;
      }
      actions.push({ kind: 'call', call: needs.call });
      return finish();
    }
    switch (step.kind) {
      case 'say':
        actions.push({ kind: 'say', text: step.text });
        break;
      case 'model':
        actions.push({ kind: 'say', text: modelAnswer(state.model) });
        break;
      case 'recall':
        actions.push({ kind: 'say', text: recallAnswer(state.earlierPrompts) });
        break;
      case 'sleep':
        actions.push({ kind: 'sleep', ms: step.ms });
        break;
      case 'fail':
        actions.push({ kind: 'fail', message: step.message });
        return finish();
    }
  }
  if (steps.some((step) => step.kind === 'finding')) actions.push({ kind: 'say', text: findingsMessage(findings) });
  return finish();
}

/**
 * `@drop` (the model stand-in's own directive: the stand-in CLIs have no provider and read it as
 * prompt text): the connection is closed without an answer, as a provider that cannot be reached,
 * on every request of the turn.
 */
export function dropsConnection(prompt: string | null): boolean {
  return prompt !== null && /^\s*@drop\s*$/m.test(prompt);
}

/** The answer to a conversation without a prompt: one sentence, so the CLI's turn still ends. */
export function noPromptAnswer(): Answer {
  return { actions: [{ kind: 'say', text: NO_PROMPT_ANSWER }], usage: fakeUsage('', []) };
}

/** Whether the answer ends the turn (no tool call, no failure) without a word. */
export function endsSilently(answer: Answer): boolean {
  return answer.actions.every((action) => action.kind === 'sleep');
}
