import type { RunFailureKind } from '@ars/bus';
import { isTerminal, type RunStatus } from './runStatus.js';

/** What the watchdog knows of a run. */
export interface WatchedRun {
  status: RunStatus;
  sandboxRecordId: string | null;
  startBy: Date;
  lostBy: Date;
  timeoutMs: number;
}

export interface WatchdogSettings {
  startTimeoutMs: number;
  lostGraceMs: number;
}

export interface Overdue {
  failure: Extract<RunFailureKind, 'sandbox_allocation' | 'sandbox_lost'>;
  error: string;
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/**
 * Runs never hang (DESIGN.md, Flow of a run): a `pending` run with no sandbox allocated by
 * `startBy` fails ("no sandbox was allocated within N s"); a live run with no result by
 * createdAt + timeoutMs + grace (`lostBy`) fails as lost. A terminal run is never overdue.
 */
export function overdueVerdict(run: WatchedRun, now: Date, settings: WatchdogSettings): Overdue | null {
  if (isTerminal(run.status)) return null;
  if (run.status === 'pending' && run.sandboxRecordId === null && now.getTime() > run.startBy.getTime()) {
    return { failure: 'sandbox_allocation', error: `no sandbox was allocated within ${seconds(settings.startTimeoutMs)}` };
  }
  if (now.getTime() > run.lostBy.getTime()) {
    return {
      failure: 'sandbox_lost',
      error: `the sandbox was lost: no result within ${seconds(run.timeoutMs + settings.lostGraceMs)} of the start (harness limit ${seconds(run.timeoutMs)} + ${seconds(settings.lostGraceMs)} grace)`,
    };
  }
  return null;
}
