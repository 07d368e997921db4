// The public sandboxes this process instance keeps now: their provisioning, their dev server, their stop.
import type { AllocatedSandbox } from '../providers/provider.js';

export interface LiveSandbox {
  recordId: string;
  userId: string;
  /** Aborts provisioning (clone, install) when the sandbox is stopped before it is ready. */
  provisioning: AbortController;
  /** Set once the provider made the sandbox. */
  allocated: AllocatedSandbox | null;
  /** The dev server's command, while it runs. */
  dev: { controller: AbortController; done: Promise<void> } | null;
  /** Set when a stop began (idle, shutdown): the first one wins. */
  stopping: boolean;
  /**
   * A workspace session's sandbox between its runs: the session's next run restores its snapshot, so
   * the sandbox keeps the session's reuse key until that snapshot is recorded (or has failed).
   */
  workspaceSession: boolean;
  /** Settles when provisioning has finished (ready, failed or aborted). */
  provisioned: Promise<void>;
}

export class LiveSandboxes {
  private readonly sandboxes = new Map<string, LiveSandbox>();

  add(recordId: string, userId: string): { sandbox: LiveSandbox; provisioned: () => void } {
    let settle: () => void = () => undefined;
    const provisioned = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const sandbox: LiveSandbox = {
      recordId,
      userId,
      provisioning: new AbortController(),
      allocated: null,
      dev: null,
      stopping: false,
      workspaceSession: false,
      provisioned,
    };
    this.sandboxes.set(recordId, sandbox);
    return { sandbox, provisioned: settle };
  }

  /** Keeps a sandbox that is already made and ready (a workspace session's, between its runs). */
  keep(recordId: string, userId: string, allocated: AllocatedSandbox): LiveSandbox {
    const sandbox: LiveSandbox = {
      recordId,
      userId,
      provisioning: new AbortController(),
      allocated,
      dev: null,
      stopping: false,
      workspaceSession: true,
      provisioned: Promise.resolve(),
    };
    this.sandboxes.set(recordId, sandbox);
    return sandbox;
  }

  /**
   * Takes a kept sandbox away from keeping (a run of its workspace session uses it now). Synchronous,
   * so no idle stop can begin on it in between; undefined when it is not kept here or already stopping.
   */
  take(recordId: string): LiveSandbox | undefined {
    const sandbox = this.sandboxes.get(recordId);
    if (!sandbox || sandbox.stopping || !sandbox.allocated) return undefined;
    this.sandboxes.delete(recordId);
    return sandbox;
  }

  get(recordId: string): LiveSandbox | undefined {
    return this.sandboxes.get(recordId);
  }

  remove(recordId: string): void {
    this.sandboxes.delete(recordId);
  }

  ids(): string[] {
    return [...this.sandboxes.keys()];
  }

  all(): LiveSandbox[] {
    return [...this.sandboxes.values()];
  }
}
