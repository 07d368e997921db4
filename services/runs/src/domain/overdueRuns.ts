import type { RunFailureKind } from '@ars/bus';
import { isTerminal, type RunStatus } from './runStatus.js';

/** What the watchdog knows of a run. */
export interface WatchedRun {
  status: RunStatus;
  sandboxRecordId: string | null;
  startBy: Date;
  lostBy: Date;
  timeoutMs: number;
  /** The last queue notice of sandboxes, when the run waited in its queue (each one restarted `startBy`). */
  queue?: { state: 'queued' | 'dequeued' } | null;
  /** A finish its sandbox reported, held until the events it counts are stored. */
  heldFinish: { receivedAt: Date } | null;
}

export interface WatchdogSettings {
  startTimeoutMs: number;
  lostGraceMs: number;
}

/** Fail the run, saying why; or apply the finish its sandbox reported although events are missing. */
export type Overdue = { kind: 'fail'; failure: Extract<RunFailureKind, 'sandbox_allocation' | 'sandbox_lost'>; error: string } | { kind: 'apply_held_finish' };

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/** Why no sandbox came: never queued, queued and then silent (its queue stopped renewing), or too slow after leaving the queue. */
function allocationError(run: WatchedRun, settings: WatchdogSettings): string {
  const window = seconds(settings.startTimeoutMs);
  if (run.queue?.state === 'queued') return `no sandbox was allocated: the run waited in the sandboxes queue, which sent no word for ${window}`;
  if (run.queue?.state === 'dequeued') return `no sandbox was allocated within ${window} of the run leaving the sandboxes queue`;
  return `no sandbox was allocated within ${window}`;
}

/**
 * Runs never hang (DESIGN.md, Flow of a run): a `pending` run with no sandbox allocated by
 * `startBy` fails ("no sandbox was allocated within N s"); a run sandboxes holds in its queue had
 * `startBy` restarted by each queue notice, so it fails only when its queue stops renewing it, or
 * when no sandbox comes within N s of leaving the queue; a live run with no result by
 * createdAt + timeoutMs + grace (`lostBy`) fails as lost. A run whose sandbox reported its end is
 * neither: its finish, held for events still on their way, is applied anyway once it has waited the
 * grace (an event that never arrives must not keep the run live). A terminal run is never overdue.
 */
export function overdueVerdict(run: WatchedRun, now: Date, settings: WatchdogSettings): Overdue | null {
  if (isTerminal(run.status)) return null;
  if (run.heldFinish) {
    return now.getTime() > run.heldFinish.receivedAt.getTime() + settings.lostGraceMs ? { kind: 'apply_held_finish' } : null;
  }
  if (run.status === 'pending' && run.sandboxRecordId === null && now.getTime() > run.startBy.getTime()) {
    return { kind: 'fail', failure: 'sandbox_allocation', error: allocationError(run, settings) };
  }
  if (now.getTime() > run.lostBy.getTime()) {
    return {
      kind: 'fail',
      failure: 'sandbox_lost',
      error: `the sandbox was lost: no result within ${seconds(run.timeoutMs + settings.lostGraceMs)} of the start (harness limit ${seconds(run.timeoutMs)} + ${seconds(settings.lostGraceMs)} grace)`,
    };
  }
  return null;
}
