import type { RunAllocation, RunFinishedData } from '@ars/bus';
import { runErrorText } from '../domain/runError.js';
import { isTerminal, nextStatus } from '../domain/runStatus.js';
import type { HeldFinish, RunDoc } from '../store/collections.js';
import type { ConsumerDeps } from './deps.js';

/** Attempts when the run's status moves between the read and the write (pending → streaming). */
const ATTEMPTS = 3;

/**
 * Ends a live run with `finish` (its sandbox's report). False when the run is unknown or already
 * terminal. Retries when the status moved between the read and the conditional write.
 */
type Finish = Omit<HeldFinish, 'receivedAt' | 'eventCount'> & { eventCount: number | null };

async function endWith(deps: ConsumerDeps, runId: string, finish: Finish): Promise<boolean> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const run = await deps.runs.findById(runId);
    if (!run) return false;
    const next = nextStatus(run.status, { kind: 'finished', status: finish.status });
    if (next === null || !isTerminal(next)) return false;
    // An allocation the run already has stays (the store's write checks that again).
    const allocation = run.sandboxRecordId === null ? (finish.allocation ?? null) : null;
    const ended = await deps.runs.end(run._id, run.status, {
      status: next,
      error: next === 'failed' ? (finish.error ?? 'the run failed') : null,
      failure: next === 'failed' ? finish.failure : null,
      finishedBy: 'sandbox',
      finishedEventCount: finish.eventCount,
      usage: finish.usage ?? null,
      allocation,
    });
    if (ended) {
      deps.logger.info({ run_id: run._id, status: next, failure: finish.failure }, 'run finished');
      return true;
    }
  }
  throw new Error(`run ${runId} kept changing while its finish was applied`);
}

/**
 * Applies a held finish once every event it counts is stored. Called after each stored event and
 * after a finish is held: both sides write first and check after, so one of them always sees both.
 */
export async function completeHeldFinish(deps: ConsumerDeps, runId: string): Promise<void> {
  await completeHeldFinishOf(deps, await deps.runs.findById(runId));
}

/** completeHeldFinish with the run already read (after whatever write the caller made). */
export async function completeHeldFinishOf(deps: ConsumerDeps, run: RunDoc | null): Promise<void> {
  if (!run?.heldFinish || isTerminal(run.status)) return;
  const stored = await deps.events.count(run._id);
  if (stored < run.heldFinish.eventCount) return;
  await endWith(deps, run._id, run.heldFinish);
}

/**
 * `runs.finished`: a live run takes the terminal status its sandbox reports, with its `error` (set
 * exactly when failed; sanitized and capped, as it is kept) and its token `usage` (kept when given). When fewer events than its `eventCount` are stored yet (the events topic is
 * read independently and may lag), the finish is held and applied once they are: a terminal run
 * always shows every event. The allocation the finish names is set with the end where the run has
 * none: a `runs.sandbox-allocated` read after the end changes nothing, so the finish is what names
 * the sandbox then. A terminal run never moves again: later or redelivered messages change
 * nothing.
 */
export async function applyRunFinished(deps: ConsumerDeps, data: RunFinishedData): Promise<void> {
  const run = await deps.runs.findById(data.runId);
  if (!run) {
    deps.logger.warn({ run_id: data.runId }, 'finish of an unknown run: ignored');
    return;
  }
  if (isTerminal(run.status)) {
    deps.logger.info({ run_id: run._id, status: run.status, reported: data.status }, 'finish of an ended run: ignored');
    return;
  }
  const finish: Finish = {
    status: data.status,
    error: data.status === 'failed' ? runErrorText(data.error, deps.secrets) : null,
    failure: data.status === 'failed' ? (data.failure ?? null) : null,
    eventCount: data.eventCount ?? null,
    // The topic's schema admits exactly the three non-negative integer totals.
    usage: data.usage ?? null,
    allocation: finishAllocation(data),
  };
  if (data.eventCount !== undefined && (await deps.events.count(run._id)) < data.eventCount) {
    await deps.runs.holdFinish(run._id, { ...finish, eventCount: data.eventCount, receivedAt: new Date() });
    deps.logger.info({ run_id: run._id, status: data.status, event_count: data.eventCount }, 'finish held until its events are stored');
    await completeHeldFinish(deps, run._id);
    return;
  }
  await endWith(deps, run._id, finish);
}

/** The allocation a finish names (the schema admits all three fields or none), as `applySandboxAllocated` stores it. */
function finishAllocation(data: RunFinishedData): RunAllocation | null {
  if (data.sandboxRecordId === undefined || data.runtime === undefined) return null;
  return {
    sandboxRecordId: data.sandboxRecordId,
    sandboxId: data.sandboxId ?? null,
    runtime: { provider: data.runtime.provider, runId: data.runtime.runId },
  };
}
