// A stand-in for the Claude Code CLI as `@anthropic-ai/claude-agent-sdk` drives it:
// `--output-format stream-json --verbose --input-format stream-json [--flag=value …]`, stream-json
// messages on stdin (the initialize control_request, then user messages) and on stdout (system/init,
// assistant, user tool_result, one result per turn). It follows the directives in the prompt
// (directives.ts) instead of asking a model. Started through bin/claude-code-standin.mjs.
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
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
import { appendClaudePrompt, claudeConfigDirOf, claudeTranscriptPath, claudeTranscriptPrompts, isThreadId } from '@ars/harness-thread-files';

const VERSION = '2.1.330';
const TOOLS = ['Bash', 'Edit', 'Glob', 'Grep', 'Read', 'Write'];

interface ClaudeArgs {
  /** The name it reports (`system`/`init`, assistant messages): the `--model` given, else `claude-standin`. */
  model: string;
  /** The `--model` given, null when none was (what `@model` answers). */
  requestedModel: string | null;
  permissionMode: string;
  /** `--resume <sessionId>`: the session to continue; null for a new one. */
  resume: string | null;
  /** `--fork-session`: a resumed session continues under a new id. */
  forkSession: boolean;
}

/** Reads `--flag=value` and `--flag value` forms; requires stream-json in and out. */
export function parseClaudeArgs(argv: readonly string[]): ClaudeArgs | string {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) continue;
    const eq = arg.indexOf('=');
    if (eq > 0) values.set(arg.slice(2, eq), arg.slice(eq + 1));
    else if (arg === '--fork-session') values.set('fork-session', 'true');
    else if (['output-format', 'input-format', 'model', 'permission-mode', 'resume'].includes(arg.slice(2))) {
      values.set(arg.slice(2), argv[++i] ?? '');
    }
  }
  if (values.get('output-format') !== 'stream-json' || values.get('input-format') !== 'stream-json') {
    return 'this stand-in speaks only stream-json (--output-format stream-json --input-format stream-json)';
  }
  const requestedModel = values.get('model') ?? null;
  return {
    model: requestedModel ?? 'claude-standin',
    requestedModel,
    permissionMode: values.get('permission-mode') ?? 'default',
    resume: values.get('resume') || null,
    forkSession: values.has('fork-session'),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The prompt text of a stream-json user message (string content or text blocks). */
function promptOf(message: Record<string, unknown>): string {
  const inner = message.message;
  if (!isRecord(inner)) return '';
  const content = inner.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b): b is Record<string, unknown> => isRecord(b) && b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
}

/** The session's transcript, where the real CLI keeps it, and the prompts already in it. */
interface Transcript {
  sessionId: string;
  path: string;
  prompts: string[];
}

/**
 * The transcript of this run: `--resume <id>` continues `<id>.jsonl` of the working directory's
 * project folder under the same id (as Claude Code does unless `--fork-session`, which copies the
 * prompts under a new id); a session id with no transcript there is an error (null), as in the
 * real CLI.
 */
async function openTranscript(args: ClaudeArgs, cwd: string): Promise<Transcript | null> {
  const configDir = claudeConfigDirOf(process.env);
  if (args.resume === null) {
    const sessionId = randomUUID();
    return { sessionId, path: claudeTranscriptPath(configDir, cwd, sessionId), prompts: [] };
  }
  if (!isThreadId(args.resume)) return null;
  let prompts: string[];
  try {
    prompts = await claudeTranscriptPrompts(claudeTranscriptPath(configDir, cwd, args.resume));
  } catch {
    return null;
  }
  if (!args.forkSession) return { sessionId: args.resume, path: claudeTranscriptPath(configDir, cwd, args.resume), prompts };
  const sessionId = randomUUID();
  const path = claudeTranscriptPath(configDir, cwd, sessionId);
  for (const prompt of prompts) await appendClaudePrompt(path, sessionId, cwd, prompt);
  return { sessionId, path, prompts };
}

class Session {
  readonly sessionId: string;
  private initSent = false;
  private toolCount = 0;
  private turns = 0;
  private costUsd = 0;
  /** The turn's last assistant text (the `result` text) and its located `@finding`s. */
  private lastText = '';
  private findings: ReportedFinding[] = [];
  private readonly runner: StepRunner;

  constructor(
    private readonly args: ClaudeArgs,
    private readonly cwd: string,
    private readonly transcript: Transcript,
  ) {
    this.sessionId = transcript.sessionId;
    this.runner = new StepRunner(cwd);
    exitOnSignals(this.runner);
  }

  stop(): void {
    this.runner.stop();
  }

  private envelope(): { parent_tool_use_id: null; session_id: string; uuid: string } {
    return { parent_tool_use_id: null, session_id: this.sessionId, uuid: randomUUID() };
  }

  private assistant(content: unknown[]): Promise<void> {
    return emitLine({
      type: 'assistant',
      message: {
        id: `msg_standin_${randomUUID().slice(0, 8)}`,
        type: 'message',
        role: 'assistant',
        model: this.args.model,
        content,
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
      ...this.envelope(),
    });
  }

  private say(text: string): Promise<void> {
    this.lastText = text;
    return this.assistant([{ type: 'text', text }]);
  }

  private toolResult(toolUseId: string, content: string, isError: boolean, toolUseResult: unknown): Promise<void> {
    return emitLine({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content, is_error: isError }] },
      tool_use_result: toolUseResult,
      ...this.envelope(),
    });
  }

  private async toolUse(name: string, input: Record<string, unknown>): Promise<string> {
    const id = `toolu_standin_${String(this.toolCount++).padStart(2, '0')}`;
    await this.assistant([{ type: 'tool_use', id, name, input }]);
    return id;
  }

  async turn(prompt: string): Promise<void> {
    const started = Date.now();
    this.turns += 1;
    if (!this.initSent) {
      this.initSent = true;
      await emitLine({
        type: 'system',
        subtype: 'init',
        cwd: this.cwd,
        session_id: this.sessionId,
        tools: TOOLS,
        mcp_servers: [],
        model: this.args.model,
        permissionMode: this.args.permissionMode,
        slash_commands: [],
        apiKeySource: process.env.ANTHROPIC_API_KEY ? 'ANTHROPIC_API_KEY' : 'none',
        claude_code_version: VERSION,
        output_style: 'default',
        agents: [],
        skills: [],
        plugins: [],
        uuid: randomUUID(),
      });
    }
    const earlierPrompts = [...this.transcript.prompts];
    await this.remember(prompt);
    const steps = parseDirectives(prompt);
    log('claude-code', `model ${this.args.model}, ${steps.length} step(s) in ${this.cwd}`);
    this.lastText = '';
    this.findings = [];
    let failure: string | null = null;
    for (const step of steps) {
      if (this.runner.isStopped) return;
      failure = await this.step(step, earlierPrompts);
      if (failure !== null) break;
    }
    if (this.runner.isStopped) return;
    if (failure === null && steps.some((step) => step.kind === 'finding')) await this.say(findingsMessage(this.findings));
    const usage = fakeUsage(prompt, steps);
    this.costUsd += (usage.input * 3 + usage.output * 15) / 1_000_000;
    const common = {
      type: 'result',
      duration_ms: Date.now() - started,
      duration_api_ms: 0,
      num_turns: this.turns,
      stop_reason: failure === null ? 'end_turn' : null,
      total_cost_usd: Math.round(this.costUsd * 1e6) / 1e6,
      usage: {
        input_tokens: usage.input,
        output_tokens: usage.output,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
      modelUsage: {},
      permission_denials: [],
      ...this.envelope(),
    };
    if (failure === null) {
      await emitLine({ ...common, subtype: 'success', is_error: false, result: this.lastText });
    } else {
      log('claude-code', `turn failed: ${failure}`);
      await emitLine({ ...common, subtype: 'error_during_execution', is_error: true, errors: [failure] });
    }
  }

  /** Records the prompt in the transcript; a HOME it cannot write only loses the memory, the turn still runs. */
  private async remember(prompt: string): Promise<void> {
    this.transcript.prompts.push(prompt);
    try {
      await appendClaudePrompt(this.transcript.path, this.sessionId, this.cwd, prompt);
    } catch (error) {
      log('claude-code', `session ${this.sessionId} not kept: ${String(error)}`);
    }
  }

  /** Runs one step; returns the failure message of a `@fail`, else null. */
  private async step(step: Step, earlierPrompts: readonly string[]): Promise<string | null> {
    switch (step.kind) {
      case 'recall':
        await this.say(recallAnswer(earlierPrompts));
        return null;
      case 'say':
        await this.say(step.text);
        return null;
      case 'model':
        await this.say(modelAnswer(this.args.requestedModel));
        return null;
      case 'finding': {
        const note = await collectFinding(this.cwd, step, this.findings);
        if (note !== null) await this.say(note);
        return null;
      }
      case 'tool': {
        const id = await this.toolUse(step.name, step.input);
        await this.toolResult(id, `stand-in tool ${step.name} called`, false, { ok: true });
        return null;
      }
      case 'shell': {
        const id = await this.toolUse('Bash', { command: step.command, description: 'Run a shell command' });
        const outcome = await this.runner.shell(step.command);
        if (this.runner.isStopped) return null;
        // As Claude Code reports it: the output alone on success; "Exit code N" first and is_error on failure.
        const ok = outcome.exitCode === 0;
        const content = ok ? outcome.output : `Exit code ${outcome.exitCode}\n${outcome.output}`;
        await this.toolResult(id, content, !ok, {
          stdout: outcome.output,
          stderr: '',
          interrupted: false,
          isImage: false,
        });
        return null;
      }
      case 'write': {
        const filePath = step.path.startsWith('/') ? step.path : `${this.cwd}/${step.path}`;
        const id = await this.toolUse('Write', { file_path: filePath, content: step.text });
        // Plan mode, as Claude Code's: the Write tool is denied, nothing is written.
        const outcome = await writeInTree(this.cwd, step.path, step.text, this.args.permissionMode === 'plan');
        if (!outcome.ok) {
          await this.toolResult(id, `<tool_use_error>${outcome.error ?? 'write failed'}</tool_use_error>`, true, `Error: ${outcome.error ?? ''}`);
          return null;
        }
        const message =
          outcome.kind === 'add'
            ? `File created successfully at: ${outcome.fullPath ?? filePath}`
            : `The file ${outcome.fullPath ?? filePath} has been updated successfully.`;
        await this.toolResult(id, message, false, {
          type: outcome.kind === 'add' ? 'create' : 'update',
          filePath: outcome.fullPath ?? filePath,
          content: step.text,
        });
        return null;
      }
      case 'sleep':
        await this.runner.sleep(step.ms);
        return null;
      case 'fail':
        return step.message;
    }
  }
}

export async function main(argv: readonly string[]): Promise<number> {
  const parsed = parseClaudeArgs(argv);
  if (typeof parsed === 'string') {
    log('claude-code', parsed);
    return 2;
  }
  const cwd = process.cwd();
  const transcript = await openTranscript(parsed, cwd);
  if (transcript === null) {
    // The real CLI's words and exit code when the session to resume is not there.
    log('claude-code', `No conversation found with session ID: ${parsed.resume ?? ''}`);
    return 1;
  }
  const session = new Session(parsed, cwd, transcript);
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  let turn: Promise<void> = Promise.resolve();
  for await (const line of lines) {
    if (line.trim() === '') continue;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      log('claude-code', `ignoring a stdin line that is not JSON`);
      continue;
    }
    if (!isRecord(message)) continue;
    if (message.type === 'control_request') {
      const requestId = message.request_id;
      const request = isRecord(message.request) ? message.request : {};
      const response =
        request.subtype === 'initialize'
          ? { commands: [], agents: [], output_style: 'default', available_output_styles: ['default'], models: [], account: {} }
          : {};
      await emitLine({ type: 'control_response', response: { subtype: 'success', request_id: requestId, response } });
    } else if (message.type === 'user') {
      const prompt = promptOf(message);
      turn = turn.then(() => session.turn(prompt));
    }
    // control_response, keep_alive, update_environment_variables and anything unknown: ignored.
  }
  // Stdin closed. After the last result this is the normal end; mid-turn it is the SDK aborting.
  session.stop();
  await turn;
  return 0;
}
