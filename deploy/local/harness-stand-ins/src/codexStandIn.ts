// A stand-in for the Codex CLI as `@openai/codex-sdk` drives it: `codex exec --experimental-json
// [options] [resume <threadId>]`, the prompt on stdin, JSONL ThreadEvents on stdout (nothing else),
// diagnostics on stderr. It follows the directives in the prompt (directives.ts) instead of asking
// a model. Started through bin/codex-standin.mjs.
import { randomUUID } from 'node:crypto';
import type { ReportedFinding } from '@ars/contract';
import {
  StepRunner,
  collectFinding,
  emitLine,
  exitOnSignals,
  fakeUsage,
  findingsMessage,
  log,
  modelAnswer,
  parseDirectives,
  recallAnswer,
  writeInTree,
  type Step,
} from './directives.js';
import { appendCodexPrompt, codexHomeOf, codexRolloutPath, codexRolloutPrompts, findCodexRollout, startCodexRollout } from '@ars/harness-thread-files';

interface CodexArgs {
  cd: string | null;
  model: string | null;
  resume: string | null;
  /** `--sandbox read-only` (a read-only mode): writes are refused. */
  readOnly: boolean;
}

/** Options of `codex exec` that take a value (the ones the SDK passes, plus common ones). */
const VALUE_OPTIONS = new Set([
  '--config',
  '-c',
  '--model',
  '-m',
  '--sandbox',
  '-s',
  '--cd',
  '-C',
  '--add-dir',
  '--output-schema',
  '--image',
  '-i',
  '--thread-source',
  '--cyber-access-program',
  '--profile',
  '-p',
  '--color',
  '--output-last-message',
  '-o',
]);

export function parseCodexArgs(argv: readonly string[]): CodexArgs | string {
  if (argv[0] !== 'exec') return `expected "exec" as the first argument, got ${JSON.stringify(argv[0] ?? '')}`;
  const args: CodexArgs = { cd: null, model: null, resume: null, readOnly: false };
  let json = false;
  for (let i = 1; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--experimental-json' || arg === '--json') json = true;
    else if (arg === 'resume') args.resume = argv[++i] ?? null;
    else if (VALUE_OPTIONS.has(arg)) {
      const value = argv[++i] ?? null;
      if (arg === '--cd' || arg === '-C') args.cd = value;
      if (arg === '--model' || arg === '-m') args.model = value;
      if (arg === '--sandbox' || arg === '-s') args.readOnly = value === 'read-only';
    }
  }
  if (!json) return 'this stand-in speaks only the JSONL protocol (--experimental-json)';
  return args;
}

interface CodexThread {
  id: string;
  /** The prompts of the thread's earlier turns, oldest first (what `@recall` lists). */
  earlierPrompts: string[];
}

/**
 * The thread of this turn, kept as the real CLI keeps it: a rollout under
 * `$CODEX_HOME/sessions/YYYY/MM/DD/`. `resume <id>` continues that rollout; with no rollout of
 * that id the real CLI silently starts a new thread, and so does this. The turn's prompt is
 * recorded at once (as codex records the user message when the turn starts). A HOME it cannot
 * write only loses the memory: the turn still runs.
 */
async function openThread(resume: string | null, cwd: string, prompt: string): Promise<CodexThread> {
  const codexHome = codexHomeOf(process.env);
  let path = resume === null ? null : await findCodexRollout(codexHome, resume);
  if (resume !== null && path === null) log('codex', `no rollout of thread ${resume} under ${codexHome}; starting a new thread`);
  const id = path !== null && resume !== null ? resume : randomUUID();
  try {
    const earlierPrompts = path === null ? [] : await codexRolloutPrompts(path);
    if (path === null) {
      const now = new Date();
      path = codexRolloutPath(codexHome, id, now);
      await startCodexRollout(path, id, cwd, now);
    }
    await appendCodexPrompt(path, prompt);
    return { id, earlierPrompts };
  } catch (error) {
    log('codex', `thread ${id} not kept: ${String(error)}`);
    return { id, earlierPrompts: [] };
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function main(argv: readonly string[]): Promise<number> {
  const parsed = parseCodexArgs(argv);
  if (typeof parsed === 'string') {
    log('codex', parsed);
    return 2;
  }
  if (parsed.cd) {
    try {
      process.chdir(parsed.cd);
    } catch (error) {
      log('codex', `cannot enter ${parsed.cd}: ${String(error)}`);
      return 1;
    }
  }
  const cwd = process.cwd();
  const runner = new StepRunner(cwd);
  exitOnSignals(runner);

  const prompt = await readStdin();
  const steps = parseDirectives(prompt);
  let itemCount = 0;
  const nextId = (): string => `item_${itemCount++}`;

  const thread = await openThread(parsed.resume, cwd, prompt);
  await emitLine({ type: 'thread.started', thread_id: thread.id });
  await emitLine({ type: 'turn.started' });
  log('codex', `model ${parsed.model ?? '(default)'}, ${steps.length} step(s) in ${cwd}`);

  const context: TurnContext = { cwd, model: parsed.model, readOnly: parsed.readOnly, findings: [], earlierPrompts: thread.earlierPrompts };
  for (const step of steps) {
    const failure = await runStep(step, runner, context, nextId);
    if (failure !== null) {
      // As the real CLI does when a turn fails: an `error` event, then `turn.failed`, exit code 1.
      await emitLine({ type: 'error', message: failure });
      await emitLine({ type: 'turn.failed', error: { message: failure } });
      log('codex', `turn failed: ${failure}`);
      return 1;
    }
  }
  if (steps.some((step) => step.kind === 'finding')) {
    await emitLine({ type: 'item.completed', item: { id: nextId(), type: 'agent_message', text: findingsMessage(context.findings) } });
  }
  const usage = fakeUsage(prompt, steps);
  await emitLine({
    type: 'turn.completed',
    usage: {
      input_tokens: usage.input,
      cached_input_tokens: 0,
      cache_write_input_tokens: 0,
      output_tokens: usage.output,
      reasoning_output_tokens: 0,
    },
  });
  return 0;
}

interface TurnContext {
  cwd: string;
  model: string | null;
  readOnly: boolean;
  findings: ReportedFinding[];
  earlierPrompts: readonly string[];
}

/** Runs one step and prints its items; returns the failure message of a `@fail`, else null. */
async function runStep(step: Step, runner: StepRunner, context: TurnContext, nextId: () => string): Promise<string | null> {
  const { cwd } = context;
  switch (step.kind) {
    case 'say':
      await emitLine({ type: 'item.completed', item: { id: nextId(), type: 'agent_message', text: step.text } });
      return null;
    case 'model':
      await emitLine({ type: 'item.completed', item: { id: nextId(), type: 'agent_message', text: modelAnswer(context.model) } });
      return null;
    case 'recall':
      await emitLine({ type: 'item.completed', item: { id: nextId(), type: 'agent_message', text: recallAnswer(context.earlierPrompts) } });
      return null;
    case 'tool': {
      const id = nextId();
      const base = { id, type: 'mcp_tool_call', server: 'standin', tool: step.name, arguments: step.input };
      await emitLine({ type: 'item.started', item: { ...base, status: 'in_progress' } });
      await emitLine({
        type: 'item.completed',
        item: {
          ...base,
          result: { content: [{ type: 'text', text: `stand-in tool ${step.name} called` }], structured_content: null },
          status: 'completed',
        },
      });
      return null;
    }
    case 'shell': {
      const id = nextId();
      await emitLine({
        type: 'item.started',
        item: { id, type: 'command_execution', command: step.command, aggregated_output: '', status: 'in_progress' },
      });
      const outcome = await runner.shell(step.command);
      await emitLine({
        type: 'item.completed',
        item: {
          id,
          type: 'command_execution',
          command: step.command,
          aggregated_output: outcome.output,
          exit_code: outcome.exitCode,
          status: outcome.exitCode === 0 ? 'completed' : 'failed',
        },
      });
      return null;
    }
    case 'write': {
      const outcome = await writeInTree(cwd, step.path, step.text, context.readOnly);
      if (!outcome.ok) log('codex', `write failed: ${outcome.error ?? ''}`);
      await emitLine({
        type: 'item.completed',
        item: {
          id: nextId(),
          type: 'file_change',
          changes: [{ path: outcome.fullPath ?? step.path, kind: outcome.kind }],
          status: outcome.ok ? 'completed' : 'failed',
        },
      });
      return null;
    }
    case 'finding': {
      const note = await collectFinding(cwd, step, context.findings);
      if (note !== null) await emitLine({ type: 'item.completed', item: { id: nextId(), type: 'agent_message', text: note } });
      return null;
    }
    case 'sleep':
      await runner.sleep(step.ms);
      return null;
    case 'fail':
      return step.message;
  }
}
