import type { RunFinishedData } from '@ars/bus';
import { nextStatus } from '../domain/runStatus.js';
import type { ConsumerDeps } from './deps.js';

/** Attempts when the run's status moves between the read and the write (pending → streaming). */
const ATTEMPTS = 3;

/**
 * `runs.finished`: a live run takes the terminal status its sandbox reports, with its `error` (set
 * exactly when failed). A terminal run never moves again: later or redelivered messages change nothing.
 */
export async function applyRunFinished(deps: ConsumerDeps, data: RunFinishedData): Promise<void> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const run = await deps.runs.findById(data.runId);
    if (!run) {
      deps.logger.warn({ run_id: data.runId }, 'finish of an unknown run: ignored');
      return;
    }
    const next = nextStatus(run.status, { kind: 'finished', status: data.status });
    if (next === null || next === 'pending' || next === 'streaming') {
      deps.logger.info({ run_id: run._id, status: run.status, reported: data.status }, 'finish of an ended run: ignored');
      return;
    }
    const ended = await deps.runs.end(run._id, run.status, {
      status: next,
      error: next === 'failed' ? (data.error ?? 'the run failed') : null,
      failure: next === 'failed' ? (data.failure ?? null) : null,
      finishedBy: 'sandbox',
      finishedEventCount: data.eventCount ?? null,
    });
    if (ended) {
      deps.logger.info({ run_id: run._id, status: next, failure: data.failure ?? null }, 'run finished');
      return;
    }
  }
  throw new Error(`run ${data.runId} kept changing while its finish was applied`);
}
