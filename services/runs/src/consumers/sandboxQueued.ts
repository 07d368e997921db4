import type { RunSandboxQueuedData } from '@ars/bus';
import type { ConsumerDeps } from './deps.js';

/**
 * `runs.sandbox-queued`: sandboxes holds the run in its queue (capacity), still holds it (a renewal,
 * sent well within the start window), or took it out. Each notice restarts the run's start
 * deadline from now (`startBy` = now + RUN_START_TIMEOUT_MS) and its lost deadline
 * (`lostBy` = now + timeoutMs + RUN_LOST_GRACE_MS), never moving either earlier: a queued run is not
 * failed for waiting, and its start deadline counts again from leaving the queue. A queue that
 * stops renewing (its instance died and none took the run over) lets `startBy` pass: the watchdog
 * fails the run as before. A terminal or unknown run changes nothing.
 */
export async function applySandboxQueued(deps: ConsumerDeps, data: RunSandboxQueuedData): Promise<void> {
  const run = await deps.runs.findById(data.runId);
  if (!run) {
    deps.logger.warn({ run_id: data.runId }, 'queue notice of an unknown run: ignored');
    return;
  }
  const now = new Date();
  const queuedAt = new Date(data.queuedAt);
  const noted = await deps.runs.noteQueued(
    run._id,
    { state: data.state, reason: data.reason, queuedAt: Number.isFinite(queuedAt.getTime()) ? queuedAt : now, noticedAt: now },
    {
      startBy: new Date(now.getTime() + deps.deadlines.startTimeoutMs),
      lostBy: new Date(now.getTime() + run.timeoutMs + deps.deadlines.lostGraceMs),
    },
  );
  if (noted)
    deps.logger.info(
      { run_id: run._id, state: data.state, reason: data.reason },
      data.state === 'queued' ? 'run waits in the sandboxes queue: start deadline restarted' : 'run left the sandboxes queue: start deadline counts from now',
    );
  else deps.logger.debug({ run_id: run._id, state: data.state }, 'queue notice of an ended run: ignored');
}
