import type { CancelState } from '@ars/contract';
import { AppError } from '@ars/errors';
import { cancelled } from '../domain/outcome.js';
import type { SessionDeps } from './deps.js';

/**
 * Cancels a run's session: aborts it here, or marks it for the instance that runs it (aborted at
 * its next heartbeat); before the request arrived, records the cancel so the request starts
 * nothing. Another user's run is NOT_FOUND.
 */
export async function cancelRunSession(deps: SessionDeps, runId: string, userId: string): Promise<CancelState> {
  let session = await deps.runSessions.get(runId);
  if (!session) {
    const placed = await deps.runSessions.placeCancel(runId, userId);
    if (placed === true) {
      deps.logger.info({ run_id: runId }, 'cancel recorded before the run request arrived');
      return 'not_started';
    }
    session = placed;
  }
  if (session.userId !== userId) throw AppError.notFound('Run not found');
  if (session.state === 'queued') {
    // Nothing runs yet: whichever instance queued it, the run ends here (its queue drops it at its next look).
    if (await deps.runSessions.finishQueued(runId, cancelled(0))) {
      deps.queue.remove(runId);
      deps.kickRelay();
      deps.logger.info({ run_id: runId }, 'queued run cancelled: it leaves the queue, not started');
      return 'not_started';
    }
    session = (await deps.runSessions.get(runId)) ?? session;
  }
  if (session.state === 'cancel_requested') return 'not_started';
  if (session.state === 'finished') return 'finished';
  if (deps.live.abort(runId, 'cancel')) {
    deps.logger.info({ run_id: runId }, 'session cancelled: harness signalled');
    return 'signalled';
  }
  const marked = await deps.runSessions.requestCancel(runId);
  if (marked) {
    deps.logger.info({ run_id: runId, instance_id: marked.instanceId }, 'cancel recorded for the instance running the session');
    return 'signalled';
  }
  return 'finished';
}
