// The seam between a session and where its sandbox lives (a local directory now, a pod later).

export interface AllocateRequest {
  runId: string;
  /** The clone URL as the catalog answered it (may carry a token: never logged, never stored). */
  cloneUrl: string;
  baseBranch: string;
  workingBranch: string;
  rootDirectory: string | null;
  signal?: AbortSignal;
}

export interface AllocatedSandbox {
  /** The provider's id of the sandbox. */
  sandboxId: string;
  /** The sandbox's own directory (removed on release). */
  dir: string;
  /** The repository's working tree. */
  repoDir: string;
  /** Where the harness runs: the working tree, or its `rootDirectory`. */
  cwd: string;
  /** The harness's HOME, inside the sandbox. */
  home: string;
}

export interface PushRequest {
  repoDir: string;
  workingBranch: string;
  /** A freshly fetched clone URL (may carry a token). */
  pushUrl: string;
  commitMessage: string;
}

export interface PushResult {
  committed: boolean;
  commit: string;
}

export interface SandboxProvider {
  readonly name: 'local';
  allocate(request: AllocateRequest): Promise<AllocatedSandbox>;
  /** Commits every change in the working tree (when there is one) and pushes it to the working branch. */
  commitAndPush(request: PushRequest): Promise<PushResult>;
  /** Ends every process still working in the sandbox, then removes its directory (by the path a session recorded; safe twice). */
  release(dir: string): Promise<void>;
}

/** A failure of allocation with a message fit for the run's `error`. */
export class AllocationError extends Error {
  constructor(
    message: string,
    readonly decisionCode: string,
  ) {
    super(message);
  }
}
