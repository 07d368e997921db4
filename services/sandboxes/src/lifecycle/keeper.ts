// Every SESSION_HEARTBEAT_MS: this instance's live public sandboxes (and workspace sessions' between
// their runs) are marked kept (heartbeat), those unused for SANDBOX_IDLE_TIMEOUT_MS are stopped, those
// another instance asked for are stopped (snapshotted, so it restores them), and live sandboxes whose keeper stopped
// heartbeating (SESSION_LOST_AFTER_MS) are failed as lost, and snapshots past SNAPSHOT_RETENTION_MS
// are deleted.
import { startPeriodicPass } from '@ars/service';
import { lostCutoffs } from '../domain/heartbeatLease.js';
import type { LifecycleDeps } from './deps.js';
import { deleteExpiredSnapshots } from './snapshotRetention.js';
import { stopSandbox, sweepUnkeptSandboxes, type StopReason } from './stopSandbox.js';

export interface Keeper {
  runOnce(): Promise<void>;
  /** Stops the timer, then every live sandbox of this instance (snapshotted), within `budgetMs`. */
  stop(budgetMs: number): Promise<void>;
}

export function startKeeper(deps: LifecycleDeps, options: { heartbeatMs: number; lostAfterMs: number }): Keeper {
  const stopping = new Set<Promise<unknown>>();
  const stopInBackground = (recordId: string, reason: StopReason): void => {
    const live = deps.live.get(recordId);
    if (!live || live.stopping) return;
    const stop = stopSandbox(deps, live, reason).catch((error: unknown) =>
      deps.logger.error({ err: error, sandbox_record_id: recordId, reason }, 'sandbox stop failed'),
    );
    stopping.add(stop);
    void stop.finally(() => stopping.delete(stop));
  };
  const nextLostCutoff = lostCutoffs(options);
  const pass = async (): Promise<void> => {
    const lostBefore = nextLostCutoff();
    const ids = deps.live.ids();
    await deps.sandboxRecords.heartbeat(deps.instanceId, ids);
    const idleBefore = new Date(Date.now() - deps.settings.idleTimeoutMs);
    for (const doc of await deps.sandboxRecords.idleAmong(ids, idleBefore)) {
      deps.logger.info({ sandbox_record_id: doc._id, last_active_at: doc.last_active_at }, 'sandbox idle: stopping');
      stopInBackground(doc._id, 'idle_timeout');
    }
    for (const doc of await deps.sandboxRecords.handoverRequestedAmong(ids)) {
      deps.logger.info(
        { sandbox_record_id: doc._id, workspace_session_id: doc.workspace_session_id },
        'workspace sandbox asked for by another instance: stopping (snapshotted)',
      );
      stopInBackground(doc._id, 'workspace_handover');
    }
    await sweepUnkeptSandboxes(deps, lostBefore);
    await deleteExpiredSnapshots(deps, new Date(), options.lostAfterMs);
  };
  const periodic = startPeriodicPass(pass, options.heartbeatMs, (error) => deps.logger.warn({ err: error }, 'sandbox keeping pass failed'));
  return {
    runOnce: periodic.runOnce,
    async stop(budgetMs) {
      await periodic.stop();
      const all = deps.live
        .all()
        .map((live) =>
          stopSandbox(deps, live, 'service_shutdown').catch((error: unknown) => deps.logger.warn({ err: error }, 'sandbox not stopped at shutdown')),
        );
      await Promise.race([Promise.all([...all, ...stopping]), new Promise((resolve) => setTimeout(resolve, budgetMs).unref())]);
    },
  };
}
