// Local sandboxes made ahead of need (SANDBOX_WARM_POOL): each one a directory of its own under the
// root with its limits already in force (its cgroups made, its disk mounted) and its temporary
// folder, and nothing of any run in it. A run's allocation takes one, so what is left on its path is
// the checkout; the pool is refilled in the background. Each prepared sandbox is taken once, by one
// run; the ones never taken are released (limits and directory) when the pool closes.

/** A sandbox with its limits in force and nothing in it yet. */
export interface PreparedSandbox {
  sandboxId: string;
  dir: string;
}

export interface PreparedSandboxesOptions {
  /** How many are kept ready (0: none, every allocation prepares its own). */
  size: number;
  /** Makes one (its directory, limits and temporary folder). */
  prepare: () => Promise<PreparedSandbox>;
  /** Releases one that will not be taken (its limits, its directory). */
  discard: (sandbox: PreparedSandbox) => Promise<void>;
  /** Told of a background preparation that failed (the next take prepares in the foreground and fails with the real cause). */
  onError?: (error: unknown) => void;
}

export class PreparedSandboxes {
  private readonly ready: PreparedSandbox[] = [];
  private readonly making = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly options: PreparedSandboxesOptions) {
    if (!Number.isSafeInteger(options.size) || options.size < 0) throw new RangeError(`size must be an integer of at least 0, not ${options.size}`);
  }

  /** Sandboxes ready to be taken now. */
  get readyCount(): number {
    return this.ready.length;
  }

  /**
   * A prepared sandbox, or null when none is ready (the caller prepares its own, and the pool starts
   * filling). A take that finds one refills nothing: preparing (a mount, cgroups) right then would
   * compete for the CPU with the run that took it, on its way to its first event; the pool is refilled
   * when a sandbox is released (`released()`), by which time that run is under way or over.
   */
  take(): PreparedSandbox | null {
    if (this.closed) return null;
    const sandbox = this.ready.shift() ?? null;
    if (sandbox === null) this.fill();
    return sandbox;
  }

  /** A sandbox of the provider's was released: its resources are free again, the pool is refilled. */
  released(): void {
    this.fill();
  }

  /** Resolves when the sandboxes being prepared are. */
  async whenFilled(): Promise<void> {
    while (this.making.size > 0) await Promise.all([...this.making]);
  }

  /** Stops refilling and releases every sandbox not taken (taken ones are their runs'). */
  async close(): Promise<void> {
    this.closed = true;
    await this.whenFilled();
    const unused = this.ready.splice(0);
    await Promise.all(unused.map((sandbox) => this.options.discard(sandbox).catch((error: unknown) => this.options.onError?.(error))));
  }

  private fill(): void {
    // A failure is not retried until the next take(): no loop of failures on a full host disk.
    while (!this.closed && this.ready.length + this.making.size < this.options.size) {
      const making: Promise<void> = this.options
        .prepare()
        .then(
          async (sandbox) => {
            if (this.closed) await this.options.discard(sandbox);
            else this.ready.push(sandbox);
          },
          (error: unknown) => this.options.onError?.(error),
        )
        .catch((error: unknown) => this.options.onError?.(error))
        .finally(() => this.making.delete(making));
      this.making.add(making);
    }
  }
}
