// The sessions this process instance runs now, each with the AbortController that stops it.
import type { AbortReason, LimitReached } from '../domain/outcome.js';

export interface LiveSession {
  runId: string;
  userId: string;
  sandboxRecordId: string;
  controller: AbortController;
  /** Why it was aborted (the first reason wins); null while not aborted. */
  reason: AbortReason | null;
  /** Settles when the session has ended and written its result. */
  done: Promise<void>;
  /** Secret values of this run (its clone URL's token, its model credential): redacted from everything it publishes. */
  secrets: string[];
  /** The limit that ended it (reason `limit`). */
  limit: LimitReached | null;
}

export class LiveSessions {
  private readonly sessions = new Map<string, LiveSession>();
  private readonly endListeners: (() => void)[] = [];

  /** Calls `listener` each time a session ends (its slot is free: the queue may start the next run). */
  onEnded(listener: () => void): void {
    this.endListeners.push(listener);
  }

  add(runId: string, userId: string, sandboxRecordId: string): { session: LiveSession; end: () => void } {
    let end: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      end = resolve;
    });
    const session: LiveSession = { runId, userId, sandboxRecordId, controller: new AbortController(), reason: null, done, secrets: [], limit: null };
    this.sessions.set(runId, session);
    return {
      session,
      end: () => {
        const wasLive = this.sessions.get(runId) === session;
        if (wasLive) this.sessions.delete(runId);
        end();
        if (wasLive) for (const listener of this.endListeners) listener();
      },
    };
  }

  get(runId: string): LiveSession | undefined {
    return this.sessions.get(runId);
  }

  /** Aborts the run's session here; false when this instance does not run it. */
  abort(runId: string, reason: AbortReason): boolean {
    const session = this.sessions.get(runId);
    if (!session) return false;
    session.reason ??= reason;
    session.controller.abort(reason);
    return true;
  }

  runIds(): string[] {
    return [...this.sessions.keys()];
  }

  sandboxRecordIds(): string[] {
    return [...this.sessions.values()].map((s) => s.sandboxRecordId);
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Waits (at most `waitMs`) for every live session to end on its own; how many are still live. */
  async drain(waitMs: number): Promise<number> {
    await this.settled([...this.sessions.values()], waitMs);
    return this.sessions.size;
  }

  private async settled(sessions: LiveSession[], waitMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(sessions.map((s) => s.done)),
      new Promise((resolve) => {
        timer = setTimeout(resolve, waitMs);
      }),
    ]);
    clearTimeout(timer);
  }

  /** Aborts every session for `reason` and waits (at most `waitMs`) until they have ended. */
  async abortAll(reason: AbortReason, waitMs: number): Promise<void> {
    const all = [...this.sessions.values()];
    for (const session of all) this.abort(session.runId, reason);
    await this.settled(all, waitMs);
  }
}
