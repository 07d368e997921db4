// Every SESSION_HEARTBEAT_MS: this instance's live and queued sessions are marked alive (and their
// sandboxes active), cancels recorded through another instance reach them, queued runs nobody keeps
// (handed back at a shutdown, or their instance stopped) join this queue, the queue is pumped, due
// `queued` notices are renewed, and sessions whose instance stopped (heartbeat older than
// SESSION_LOST_AFTER_MS) are ended as lost.
import { lostCutoffs } from '../domain/heartbeatLease.js';
import { failed, SANDBOX_LOST_MESSAGE } from '../domain/outcome.js';
import { startPeriodicPass } from '@ars/service';
import type { SessionDeps } from './deps.js';
import { pumpQueue } from './startRunSession.js';

export interface Supervisor {
  /** One pass now (after a running one). */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

export function startSupervisor(deps: SessionDeps, options: { heartbeatMs: number; lostAfterMs: number }): Supervisor {
  const nextLostCutoff = lostCutoffs(options);
  const pass = async (): Promise<void> => {
    const lostBefore = nextLostCutoff();
    await deps.runSessions.heartbeat(deps.instanceId, [...deps.live.runIds(), ...deps.queue.runIds()]);
    await deps.sandboxRecords.touchMany(deps.live.sandboxRecordIds());
    for (const runId of await deps.runSessions.cancelRequestedOn(deps.instanceId)) {
      if (deps.live.abort(runId, 'cancel')) deps.logger.info({ run_id: runId }, 'cancel recorded by another instance: session aborted');
    }
    await adoptQueued(deps, lostBefore);
    await pumpQueue(deps);
    await renewNotices(deps, new Date(Date.now() + options.heartbeatMs));
    await sweepLost(deps, lostBefore);
  };
  return startPeriodicPass(pass, options.heartbeatMs, (error) => deps.logger.warn({ err: error }, 'session supervision pass failed'));
}

/**
 * Queued runs nobody keeps join this instance's queue in their arrival order (their request is in
 * the session document), and runs is told at once; one whose start deadline as runs holds it has
 * passed meanwhile (no instance renewed it in time: runs has failed it) ends failed, unstarted.
 */
export async function adoptQueued(deps: SessionDeps, staleBefore: Date): Promise<number> {
  let adopted = 0;
  for (const doc of await deps.runSessions.adoptable(staleBefore)) {
    if (deps.queue.closed) break;
    const queue = doc.queue;
    if (!queue) continue;
    if (queue.holdUntil.getTime() < Date.now()) {
      const result = failed(
        'sandbox_allocation',
        'the run was not started: it waited in the queue of a sandboxes instance that stopped, and its start deadline passed before another one took it',
        0,
      );
      if (await deps.runSessions.finishQueued(doc._id, result)) {
        deps.logger.warn(
          { run_id: doc._id, instance_id: doc.instanceId },
          'queued run of a stopped instance found past its start deadline: ended, not started',
        );
        deps.kickRelay();
      }
      continue;
    }
    if (!(await deps.runSessions.adopt(doc, deps.instanceId))) continue;
    adopted += 1;
    deps.queue.add({
      runId: doc._id,
      userId: doc.userId,
      request: queue.request,
      queuedAt: queue.queuedAt,
      reason: queue.reason,
      ...(queue.trace ? { trace: queue.trace } : {}),
    });
    await deps.runSessions.notice(doc._id, deps.instanceId, queue.reason);
    deps.logger.info(
      { run_id: doc._id, from_instance: doc.instanceId, queued_at: queue.queuedAt },
      'queued run taken over from an instance that stopped or handed it back',
    );
  }
  if (adopted > 0) deps.kickRelay();
  return adopted;
}

/** Renews the `queued` notice of this instance's queued runs due before `dueBefore` (runs' start deadline restarts with each). */
async function renewNotices(deps: SessionDeps, dueBefore: Date): Promise<void> {
  let renewed = 0;
  for (const doc of await deps.runSessions.noticesDue(deps.instanceId, dueBefore)) {
    const waiting = deps.queue.get(doc._id);
    if (waiting && (await deps.runSessions.notice(doc._id, deps.instanceId, waiting.reason))) renewed += 1;
  }
  if (renewed > 0) deps.kickRelay();
}

/** Ends every session whose heartbeat is older than `before`: `run.finished` failed `sandbox_lost`. */
export async function sweepLost(deps: SessionDeps, before: Date): Promise<number> {
  let ended = 0;
  for (const session of await deps.runSessions.stale(before)) {
    if (deps.live.get(session._id)) continue; // ours and alive (its heartbeat write is late, not lost)
    const result = await deps.runSessions.finishLost(session, SANDBOX_LOST_MESSAGE);
    if (!result) continue;
    ended += 1;
    deps.logger.warn(
      { run_id: session._id, instance_id: session.instanceId, event_count: result.eventCount },
      'session lost (its instance stopped): run ended',
    );
    if (session.sandboxRecordId) {
      await deps.sandboxRecords
        .transition(session.sandboxRecordId, result.status === 'failed' ? { status: 'failed', error: result.error } : { status: 'stopped' }, {
          eventType: 'lost',
          decisionCode: result.failure ?? result.status,
          runId: session._id,
        })
        .catch((error: unknown) => deps.logger.warn({ err: error }, 'lost sandbox record not updated'));
    }
    await deps.provider.release({ sandboxId: session.sandboxId, dir: session.sandboxDir }).catch(() => undefined);
  }
  if (ended > 0) deps.kickRelay();
  return ended;
}
