// The harness-neutral interface: one call runs one agent turn through a harness SDK and maps its
// stream to HarnessEvents (the run events' kinds; see README.md in this folder for the table).
import { isAbsolute, relative, sep } from 'node:path';
import { HARNESSES, type Harness } from '@ars/contract';

/** The contract's harness names (`POST /runs` `harness`). */
export type HarnessName = Harness;

export const HARNESS_NAMES: readonly HarnessName[] = HARNESSES;

export type HarnessEventType = 'stream_started' | 'assistant_message' | 'reasoning' | 'tool_call' | 'file_change' | 'usage' | 'error' | 'completed';

export interface HarnessEvent {
  type: HarnessEventType;
  toolName: string | null;
  message: string | null;
  payload: Record<string, unknown>;
}

export interface HarnessUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningOutputTokens: number;
  /** Estimated cost in US dollars when the harness reports one (Claude Code does; Codex does not). */
  costUsd: number | null;
}

export type HarnessStatus = 'success' | 'failed' | 'cancelled';

export interface HarnessResult {
  status: HarnessStatus;
  /** Set when status is `failed`: what went wrong, in words (the agent's error, or the crash). */
  error?: string;
  usage?: HarnessUsage;
  /**
   * The thread the turn ran in (codex `thread.started` `thread_id`, Claude Code `system`/`init`
   * `session_id`): set whenever the stream started, whatever the status, so the caller can keep it
   * and pass it back as `resumeThreadId`. It may differ from the `resumeThreadId` given (codex
   * starts a new thread when it has no rollout of that id).
   */
  threadId?: string;
}

/** An MCP tool server the CLI starts itself (stdio transport), inside the CLI's own sandbox. */
export interface HarnessToolServer {
  command: string;
  args: string[];
}

export interface RunHarnessOptions {
  harness: HarnessName;
  prompt: string;
  /** The working tree the agent works in (absolute). */
  cwd: string;
  /**
   * The working tree as the agent sees it, when that is not `cwd` (a harness run in a Pod through a
   * local shim): paths in events are made relative to it.
   */
  treeRoot?: string;
  /** The complete environment of the harness process (already scrubbed); process.env is never inherited. */
  env: Record<string, string>;
  /**
   * The provider key, passed explicitly: `CODEX_API_KEY` for codex, `ANTHROPIC_API_KEY` for
   * claude-code. Absent: a key already in `env` is used, else a placeholder (`NO_API_KEY_PLACEHOLDER`),
   * because both CLIs refuse to start without one and a provider that needs none (the model
   * stand-in, a local gateway) must still be asked.
   */
  apiKey?: string;
  /**
   * The root (`scheme://host[:port]`, no `/v1`) of the model API as the CLI reaches it, serving the
   * OpenAI Responses API at `/v1/responses` (codex) and the Anthropic Messages API at `/v1/messages`
   * (claude-code): in a sandbox, the forwarder on its own loopback. Absent: the CLI's default
   * provider (api.openai.com, api.anthropic.com).
   */
  modelBaseUrl?: string;
  /**
   * True when the caller's own sandbox (our bubblewrap, a Pod) is the boundary: codex then runs
   * without its own nested sandbox, which cannot be set up inside ours, and a read-only mode is
   * enforced by the caller's read-only mount of the tree. False or absent (development without
   * isolation): codex sandboxes its commands itself (`workspace-write`, `read-only`).
   */
  containedByCaller?: boolean;
  model?: string;
  /**
   * MCP tool servers (stdio) handed to the CLI, by name: codex `mcp_servers.<name>`, Claude Code
   * `mcpServers` with every tool of theirs allowed (`mcp__<name>`). Their tools' calls are
   * `tool_call` events named as the server names the tool, with `payload.server` the server's name.
   */
  toolServers?: Record<string, HarnessToolServer>;
  /** `POST /runs` `mode` (runModes.ts): a read-only mode keeps the agent from changing files. */
  mode?: string | null;
  /**
   * Continue this thread (a `threadId` of an earlier result) instead of starting one: codex
   * `exec … resume <id>`, Claude Code `--resume <id>`. Its files must be under HOME
   * (threadState.ts restores them into another sandbox).
   */
  resumeThreadId?: string | null;
  signal: AbortSignal;
  /** The harness CLI (a stand-in from standInExecutable() or a real CLI); the SDK's bundled CLI when absent. */
  executablePath?: string;
  /** Awaited for every event, in order. If it rejects, the harness is stopped and runHarness rejects. */
  onEvent: (event: HarnessEvent) => Promise<void>;
}

/** Makes `path` relative to `cwd` when it lies inside it (harnesses report absolute paths). */
/**
 * The key a CLI is given when no key was: both refuse to start without one, and a provider that
 * needs none then sees this name (`Authorization: Bearer ars-no-api-key`, `x-api-key: ars-no-api-key`).
 */
export const NO_API_KEY_PLACEHOLDER = 'ars-no-api-key';

/**
 * The model API root as the CLIs take it: no trailing slash, and no `/v1` (each CLI adds its own
 * path; a root given with `/v1` is accepted). Throws on a value that is not an http(s) URL.
 */
export function modelApiRoot(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new Error(`modelBaseUrl is not a URL: ${JSON.stringify(baseUrl)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`modelBaseUrl must be http(s): ${JSON.stringify(baseUrl)}`);
  if (url.search || url.hash) throw new Error(`modelBaseUrl must have no query or fragment: ${JSON.stringify(baseUrl)}`);
  const path = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${url.protocol}//${url.host}${path}`;
}

export function pathInTree(cwd: string, path: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(cwd, path);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return path;
  return rel.split(sep).join('/');
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * Delivers events in order and remembers that the stream started: `stream_started` is always the
 * first event, synthesized if the harness's first mapped event is something else.
 */
export class EventSink {
  private started = false;
  constructor(
    private readonly onEvent: (event: HarnessEvent) => Promise<void>,
    private readonly startMessage: string,
  ) {}

  get hasStarted(): boolean {
    return this.started;
  }

  async start(message: string): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.deliver({ type: 'stream_started', toolName: null, message, payload: {} });
  }

  async emit(event: HarnessEvent): Promise<void> {
    if (!this.started) await this.start(this.startMessage);
    await this.deliver(event);
  }

  private async deliver(event: HarnessEvent): Promise<void> {
    try {
      await this.onEvent(event);
    } catch (error) {
      throw new SinkError(error);
    }
  }
}

/** Thrown inside an adapter to carry a rejection of onEvent out untouched. */
export class SinkError extends Error {
  constructor(readonly original: unknown) {
    super(`onEvent failed: ${errorText(original)}`);
  }
}
