// The seam between the service and where a sandbox lives: a local directory (`local.ts`) or a
// Kubernetes Pod (`kubernetes/kubernetesProvider.ts`). Paths in an AllocatedSandbox are the
// provider's own (local paths, or paths inside the Pod): only the provider interprets them.
import type { RunUsage } from '@ars/contract';
import type { HarnessName } from '../harness/index.js';

export type ProviderName = 'local' | 'kubernetes';

/**
 * Whose allowlist a command's way out follows (a local sandbox: its egress proxy). `install`: an
 * install step (SANDBOX_INSTALL_EGRESS_ALLOW); `agent`: a dev server, like the agent's turn
 * (SANDBOX_EGRESS_ALLOW). Absent: nothing outside (reading files).
 */
export type EgressPhase = 'install' | 'agent';

export interface AllocateRequest {
  /** The service's record id of the sandbox (names or labels the provider's resources). */
  sandboxRecordId: string;
  /** The run the sandbox is for; null for a sandbox made through the public routes. */
  runId: string | null;
  /** The clone URL as the catalog answered it (may carry a token: never logged, never stored, never left in the sandbox). */
  cloneUrl: string;
  baseBranch: string;
  /** Checked out from the remote when it exists there, else created from the base branch. */
  workingBranch: string;
  rootDirectory: string | null;
  /**
   * A snapshot (a `.tar.gz` written by `snapshot()`, on this machine) to restore instead of checking
   * the branches out: the repository's working tree comes back as it was, uncommitted changes included.
   */
  restoreFrom?: string;
  signal?: AbortSignal;
}

export interface AllocatedSandbox {
  /** The provider's id of the sandbox (the contract's `sandbox_id`). */
  sandboxId: string;
  /** A local directory the sandbox occupies (removed on release); null when it lives elsewhere (a Pod). */
  dir: string | null;
  /** The repository's working tree (provider's path). */
  repoDir: string;
  /** Where commands and the harness run: the working tree, or its `rootDirectory` (provider's path). */
  cwd: string;
  /** HOME inside the sandbox (provider's path). */
  home: string;
}

/** What is recorded of a sandbox, enough to release it after a restart. */
export interface SandboxRef {
  sandboxId: string | null;
  dir: string | null;
}

export interface ExecRequest {
  /** A shell command line, run as `/bin/sh -c <command>`. */
  command: string;
  /** Provider's path. */
  cwd: string;
  /** The command's whole environment (nothing of the service's is inherited). */
  env: Record<string, string>;
  /** Standard output and standard error, interleaved as they come. */
  onOutput: (chunk: Buffer) => void;
  /** Aborting ends the command (TERM, then KILL) and resolves with `aborted: true`. */
  signal?: AbortSignal;
  /** What the command may reach outside; absent: nothing. */
  egress?: EgressPhase;
  /** A port the command listens on (a dev server's, from previewEndpoint()): reachable from outside as the endpoint says (no route out comes with it). */
  forwardPort?: number;
}

export interface ExecResult {
  /** The exit code; 128 + n when a signal ended it; null when it could not be told. */
  exitCode: number | null;
  aborted: boolean;
}

/** Where a server listening inside the sandbox is reached from outside. */
export interface PreviewEndpoint {
  /** The port the dev server is told to listen on (`PORT`). */
  port: number;
  /** Its URL as reported in `preview_url`. */
  url: string;
}

export interface HarnessLaunchRequest {
  harness: HarnessName;
  /** The configured CLI (undefined: the SDK's bundled one). */
  executablePath: string | undefined;
  /** Host paths an isolated sandbox binds read-only for the CLI; absent: what its path needs (its package). */
  cliFiles?: string[];
  /** Host paths an isolated sandbox binds read-only for the CLI's tool servers, beside the CLI's own. */
  toolFiles?: string[];
  /** The harness's scrubbed environment, with sandbox paths. */
  env: Record<string, string>;
  cwd: string;
  /**
   * A harness CLI has no network during its turn (the local provider: its own loopback only).
   * With this, it calls a model: it is given the one way there (the local provider: the model proxy's
   * socket bound into the sandbox, a forwarder on the sandbox's loopback in front of the CLI).
   */
  modelAccess?: boolean;
  /**
   * A read-only mode: the working tree is mounted read-only for the agent where the provider can
   * (the local provider under bubblewrap); everywhere the harness's own read-only mode applies too.
   */
  readOnlyTree?: boolean;
}

/** What a run sees of its door to the model gateway (modelAccess/modelGateway.ts). */
export interface ModelDoorOfRun {
  credential: string;
  usage(): RunUsage | null;
  onBudgetSpent(listener: (usage: RunUsage, budget: number) => void): void;
}

/** How the harness SDK is to spawn its CLI for this sandbox. */
export interface HarnessLaunch {
  /** The executable the SDK spawns (for a Pod: a local shim that runs the CLI in the Pod). */
  executablePath: string | undefined;
  env: Record<string, string>;
  cwd: string;
  /** With `modelAccess`: the root URL (no `/v1`) the CLI calls both model APIs at. Absent: the CLI's own provider settings. */
  modelBaseUrl?: string;
  /**
   * With `modelAccess` through the model gateway: the run's door. The CLI is given its credential in
   * place of a provider key, and the run's usage is what the gateway counted. Absent: the CLI holds
   * the provider key itself (a provider without a gateway).
   */
  model?: ModelDoorOfRun;
  /** True when the provider's own boundary holds the CLI (bubblewrap, a Pod): the CLI's own sandbox would be nested in it. */
  contained: boolean;
  /** Called once the harness ended. */
  close(): Promise<void>;
}

export interface PushRequest {
  workingBranch: string;
  /** A freshly fetched clone URL (may carry a token): used on this machine only. */
  pushUrl: string;
  commitMessage: string;
}

export interface PushResult {
  committed: boolean;
  commit: string;
}

export interface SandboxProvider {
  readonly name: ProviderName;
  /** Makes the sandbox with the repository checked out (or restored); an AllocationError says why it could not. */
  allocate(request: AllocateRequest): Promise<AllocatedSandbox>;
  /** Runs a shell command in the sandbox (install steps, dev servers). */
  exec(sandbox: AllocatedSandbox, request: ExecRequest): Promise<ExecResult>;
  /** A port for a dev server in this sandbox and the URL it answers on. */
  previewEndpoint(sandbox: AllocatedSandbox): Promise<PreviewEndpoint>;
  /** How the harness CLI is spawned so that it runs in the sandbox. */
  launchHarness(sandbox: AllocatedSandbox, request: HarnessLaunchRequest): Promise<HarnessLaunch>;
  /** Commits every change in the working tree (when there is one) and pushes it to the working branch. */
  commitAndPush(sandbox: AllocatedSandbox, request: PushRequest): Promise<PushResult>;
  /** Writes the working tree (uncommitted changes included) and HOME to `file` (`.tar.gz` on this machine). */
  snapshot(sandbox: AllocatedSandbox, file: string): Promise<{ bytes: number }>;
  /** Ends every process of the sandbox and removes it (safe twice; by what a record holds, also after a restart). */
  release(sandbox: SandboxRef): Promise<void>;
  /** Right before the agent's turn: what the service wrote into the sandbox's HOME becomes the sandbox user's (a local sandbox). */
  handOver?(sandbox: AllocatedSandbox): Promise<void>;
  /** The limits in force on a sandbox (its `limits` lifecycle event); absent or null: none this provider holds. */
  limitsOf?(sandbox: SandboxRef): SandboxLimitsInForce | null;
  /**
   * The limit a sandbox's processes reached (a refused fork, an out-of-memory kill, a full disk), or
   * null. Polled while a harness runs; a provider that asks a remote API may answer those polls from
   * a recent read, but never a `fresh` check (the one after the harness ended).
   */
  limitReached?(sandbox: SandboxRef, check?: LimitCheck): Promise<SandboxLimitHit | null>;
  /**
   * HOME's files, for a provider whose HOME is not a local directory (`dir` null: a Pod), so that a
   * conversation's thread is kept and resumed there too. A local HOME is read and written directly.
   */
  homeFiles?: HomeFiles;
}

/** Each limit of a sandbox (null: not limited), and the limits this machine could not enforce. */
export interface SandboxLimitsInForce {
  memory_mb: number | null;
  pids: number | null;
  cpus: number | null;
  disk_mb: number | null;
  not_enforced: string[];
}

export interface SandboxLimitHit {
  code: 'process_limit' | 'memory_limit' | 'disk_limit';
  limits: Omit<SandboxLimitsInForce, 'not_enforced'>;
  /** The setting behind the limit, as the run's error names it; absent: the local provider's (SANDBOX_PIDS, SANDBOX_MEMORY_MB, SANDBOX_DISK_MB). */
  setting?: string;
}

/** How a limit check is asked for. */
export interface LimitCheck {
  /** The harness ended: look now (a provider must not answer from an earlier read). */
  fresh?: boolean;
}

/** A text file under HOME (`path` relative, `/`-separated). */
export interface HomeFile {
  path: string;
  content: string;
}

export interface HomeFiles {
  /**
   * The regular files under each of HOME's folders `roots` (relative paths; symbolic links not
   * followed), written to the same paths under the local folder `into`. What comes back is the
   * agent's: only plain relative paths under the roots are taken. Throws HomeFilesTooLarge past `limitBytes`.
   */
  read(sandbox: AllocatedSandbox, roots: readonly string[], into: string, limitBytes: number): Promise<void>;
  /** Writes `files` under HOME, replacing files of the same path. */
  write(sandbox: AllocatedSandbox, files: readonly HomeFile[]): Promise<void>;
}

/** HOME's files under the roots asked for are over the limit given. */
export class HomeFilesTooLarge extends Error {}

/** A failure of allocation with a message fit for the record's `error` and a lifecycle decision code. */
export class AllocationError extends Error {
  constructor(
    message: string,
    readonly decisionCode: string,
  ) {
    super(message);
  }
}
