// The runs service's own metrics (beside the kit's HTTP and bus ones): runs started, runs ended by
// terminal status, and how long they took. Labels are the contract's enums only (status, harness).
import { counter, histogram, secondsSince, RUN_DURATION_BUCKETS } from '@ars/metrics';
import type { Harness } from '@ars/contract';
import type { TerminalStatus } from './domain/runStatus.js';

const started = () =>
  counter({ name: 'ars_runs_started_total', help: 'Runs created (POST /internal/runs answered 202 with a new run), by harness.', labelNames: ['harness'] });
const finished = () =>
  counter({
    name: 'ars_runs_finished_total',
    help: 'Runs that reached a terminal status (success, failed, cancelled), by status and harness; each run once.',
    labelNames: ['status', 'harness'],
  });
const duration = () =>
  histogram({
    name: 'ars_run_duration_seconds',
    help: 'Time from a run being created to its terminal status, by status and harness.',
    labelNames: ['status', 'harness'],
    buckets: RUN_DURATION_BUCKETS,
  });

/** A new run was written (not a replay of its idempotency key). */
export function recordRunStarted(harness: Harness): void {
  started().inc({ harness });
}

/** A run ended (the one write that ended it: `RunStore.end`). */
export function recordRunFinished(status: TerminalStatus, harness: Harness, createdAt: Date): void {
  finished().inc({ status, harness });
  duration().observe({ status, harness }, secondsSince(createdAt));
}
