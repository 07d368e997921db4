/** Thrown out of a wait when the consumer is stopping: the record stays unresolved and uncommitted. */
export class Stopping extends Error {}

/** Whether the consumer is stopping, and waits that stop() cuts short. */
export class StopSignal {
  private stoppingNow = false;
  private readonly wakeups = new Set<() => void>();

  get stopping(): boolean {
    return this.stoppingNow;
  }

  /** Sleeps `ms`, waking early when stop() is called; throws Stopping when stopping. */
  async sleep(ms: number): Promise<void> {
    if (this.stoppingNow) throw new Stopping();
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakeups.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakeups.add(wake);
    });
    if (this.stoppingNow) throw new Stopping();
  }

  stop(): void {
    this.stoppingNow = true;
    for (const wake of [...this.wakeups]) wake();
  }
}
