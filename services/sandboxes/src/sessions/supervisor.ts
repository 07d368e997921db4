// Every SESSION_HEARTBEAT_MS: this instance's live sessions are marked alive (and their sandboxes
// active), cancels recorded through another instance reach them, and sessions whose instance
// stopped (heartbeat older than SESSION_LOST_AFTER_MS) are ended as lost.
import { SANDBOX_LOST_MESSAGE } from '../domain/outcome.js';
import { startPeriodicPass } from '../periodic.js';
import type { SessionDeps } from './deps.js';

export interface Supervisor {
  /** One pass now (after a running one). */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

export function startSupervisor(deps: SessionDeps, options: { heartbeatMs: number; lostAfterMs: number }): Supervisor {
  const pass = async (): Promise<void> => {
    const ids = deps.live.runIds();
    await deps.sessions.heartbeat(deps.instanceId, ids);
    await deps.sandboxes.touchMany(deps.live.sandboxRecordIds());
    for (const runId of await deps.sessions.cancelRequestedOn(deps.instanceId)) {
      if (deps.live.abort(runId, 'cancel')) deps.logger.info({ run_id: runId }, 'cancel recorded by another instance: session aborted');
    }
    await sweepLost(deps, new Date(Date.now() - options.lostAfterMs));
  };
  return startPeriodicPass(pass, options.heartbeatMs, (error) => deps.logger.warn({ err: error }, 'session supervision pass failed'));
}

/** Ends every session whose heartbeat is older than `before`: `run.finished` failed `sandbox_lost`. */
export async function sweepLost(deps: SessionDeps, before: Date): Promise<number> {
  let ended = 0;
  for (const session of await deps.sessions.stale(before)) {
    if (deps.live.get(session._id)) continue; // ours and alive (its heartbeat write is late, not lost)
    const result = await deps.sessions.finishLost(session, SANDBOX_LOST_MESSAGE);
    if (!result) continue;
    ended += 1;
    deps.logger.warn({ run_id: session._id, instance_id: session.instanceId, event_count: result.eventCount }, 'session lost (its instance stopped): run ended');
    if (session.sandboxRecordId) {
      await deps.sandboxes
        .transition(
          session.sandboxRecordId,
          result.status === 'failed' ? { status: 'failed', error: result.error } : { status: 'stopped' },
          { eventType: 'lost', decisionCode: result.failure ?? result.status, runId: session._id },
        )
        .catch((error: unknown) => deps.logger.warn({ err: error }, 'lost sandbox record not updated'));
    }
    await deps.provider.release({ sandboxId: session.sandboxId, dir: session.sandboxDir }).catch(() => undefined);
  }
  if (ended > 0) deps.kickRelay();
  return ended;
}
