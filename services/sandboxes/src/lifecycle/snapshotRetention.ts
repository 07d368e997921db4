// Snapshot retention: a snapshot older than SNAPSHOT_RETENTION_MS, or beyond its user's newest
// SNAPSHOT_MAX_PER_USER, is deleted (archive, then record), with a `snapshot_deleted` event on the
// sandbox it was taken of. Each deletion is claimed with a conditional write first, so several
// instances sweeping at once delete each snapshot once; a claim whose instance stopped midway is
// taken over after SESSION_LOST_AFTER_MS.
import { rm } from 'node:fs/promises';
import type { SnapshotDoc } from '../store/collections.js';
import type { LifecycleDeps } from './deps.js';

export type SnapshotDeletionReason = 'retention' | 'user_limit';

/** Deletes (a batch of) the snapshots older than the retention; answers how many. */
export async function deleteExpiredSnapshots(deps: LifecycleDeps, now: Date, claimStaleMs: number): Promise<number> {
  const staleBefore = new Date(now.getTime() - claimStaleMs);
  const expired = await deps.snapshots.olderThan(new Date(now.getTime() - deps.settings.snapshotRetentionMs), staleBefore, 100);
  let deleted = 0;
  for (const snapshot of expired) if (await deleteSnapshot(deps, snapshot, 'retention', staleBefore)) deleted += 1;
  return deleted;
}

/** Deletes the user's snapshots beyond the newest SNAPSHOT_MAX_PER_USER, oldest first; answers how many. */
export async function trimUserSnapshots(deps: LifecycleDeps, userId: string, claimStaleMs: number): Promise<number> {
  const staleBefore = new Date(Date.now() - claimStaleMs);
  const beyond = await deps.snapshots.beyondNewest(userId, deps.settings.snapshotMaxPerUser, staleBefore);
  let deleted = 0;
  for (const snapshot of beyond.reverse()) if (await deleteSnapshot(deps, snapshot, 'user_limit', staleBefore)) deleted += 1;
  return deleted;
}

async function deleteSnapshot(deps: LifecycleDeps, snapshot: SnapshotDoc, reason: SnapshotDeletionReason, staleBefore: Date): Promise<boolean> {
  if (!(await deps.snapshots.claimDeletion(snapshot, deps.instanceId, staleBefore))) return false;
  // From the claim on a restore answers 404; the archive goes before the record, so a record never
  // outlives nothing but a claim another instance can finish.
  await rm(snapshot.file, { force: true });
  if (!(await deps.snapshots.remove(snapshot._id, deps.instanceId))) return false;
  deps.logger.info(
    { snapshot_id: snapshot._id, sandbox_record_id: snapshot.sandbox_record_id, user_id: snapshot.userId, reason, bytes: snapshot.bytes },
    'snapshot deleted',
  );
  await deps.sandboxRecords
    .event(snapshot.sandbox_record_id, { eventType: 'snapshot_deleted', decisionCode: reason, payload: { snapshot_id: snapshot._id, bytes: snapshot.bytes } })
    .catch((error: unknown) => deps.logger.warn({ err: error, snapshot_id: snapshot._id }, 'snapshot deletion not recorded in the lifecycle'));
  return true;
}
