// This instance's run queue: requests wait here, oldest first, for one of its SANDBOX_MAX_SESSIONS
// session slots and for room among their user's SANDBOX_MAX_LIVE_PER_USER live sandboxes. The
// queue's truth is the `queued` session documents (so a request is never lost with the process);
// this is their order in memory and the one pump that starts them.
import type { RunRequestedData } from '@ars/bus';
import type { CatalogRepo } from '@ars/contract';
import type { QueueReason } from '../store/collections.js';

export interface QueuedRun {
  runId: string;
  userId: string;
  request: RunRequestedData;
  /** Arrival: the order of the queue. */
  queuedAt: Date;
  /** Why it waits now (what the next notice says). */
  reason: QueueReason;
  /** W3C trace headers of the run: it leaves the queue in its own trace, whichever pass starts it. */
  trace?: Record<string, string>;
  /**
   * Set only for the pass right after its request arrived here: its session document was written
   * by this instance a moment ago (nothing to read back), and its repository is being asked of the
   * catalog meanwhile. A run still waiting after that pass loses it (startRunSession).
   */
  arriving?: { repo: RepoLookup };
}

/** The repository of a run asked of the catalog ahead of its allocation; abort() when it is not needed after all. */
export interface RepoLookup {
  repo: Promise<CatalogRepo>;
  abort(): void;
}

/** What an attempt to start a queued run came to. */
/**
 * What admitting a queued run did: started it; not now, its user holds every live slot; nothing (it is
 * gone); not now, something failed (the pass ends); not now, its workspace session's sandbox is held
 * by another run or instance (the pass goes on with the next run).
 */
export type Admission = 'started' | 'user_full' | 'gone' | 'retry_later' | 'held';

export class RunQueue {
  private waiting: QueuedRun[] = [];
  /** The last pass asked for (passes run one after another). */
  private tail: Promise<void> = Promise.resolve();
  /** A pass asked for that has not begun: a pump called now is served by it. */
  private next: Promise<void> | null = null;
  private closedForGood = false;

  /** Adds a run in arrival order (an adopted run may be older than the ones here). */
  add(run: QueuedRun): void {
    if (this.has(run.runId)) return;
    const at = this.waiting.findIndex((other) => other.queuedAt.getTime() > run.queuedAt.getTime());
    if (at === -1) this.waiting.push(run);
    else this.waiting.splice(at, 0, run);
  }

  remove(runId: string): void {
    this.waiting = this.waiting.filter((run) => run.runId !== runId);
  }

  has(runId: string): boolean {
    return this.waiting.some((run) => run.runId === runId);
  }

  get(runId: string): QueuedRun | undefined {
    return this.waiting.find((run) => run.runId === runId);
  }

  runIds(): string[] {
    return this.waiting.map((run) => run.runId);
  }

  get size(): number {
    return this.waiting.length;
  }

  /** No run starts from here any more (shutdown): what waits is handed back. */
  close(): void {
    this.closedForGood = true;
  }

  get closed(): boolean {
    return this.closedForGood;
  }

  /**
   * Starts queued runs, oldest first, while `hasSlot()`: a run whose user has no room is passed over
   * (it keeps its place), the next one is tried. One pass at a time; a call resolves after a pass
   * that began after it (calls while one waits to begin share it).
   */
  pump(hasSlot: () => boolean, admit: (run: QueuedRun) => Promise<Admission>): Promise<void> {
    if (this.next) return this.next;
    const next = this.tail.then(() => {
      this.next = null;
      return this.closedForGood ? undefined : this.pass(hasSlot, admit);
    });
    this.next = next;
    this.tail = next.catch(() => undefined);
    return next;
  }

  private async pass(hasSlot: () => boolean, admit: (run: QueuedRun) => Promise<Admission>): Promise<void> {
    const fullUsers = new Set<string>();
    for (const run of [...this.waiting]) {
      if (this.closedForGood) return;
      if (!this.has(run.runId)) continue;
      if (fullUsers.has(run.userId)) {
        run.reason = 'user_full';
        continue;
      }
      if (!hasSlot()) {
        run.reason = 'instance_full';
        continue;
      }
      const admission = await admit(run);
      if (admission === 'retry_later') return;
      if (admission === 'held') {
        run.reason = 'workspace_busy';
        continue;
      }
      if (admission === 'user_full') {
        fullUsers.add(run.userId);
        run.reason = 'user_full';
        continue;
      }
      this.remove(run.runId);
    }
  }
}
