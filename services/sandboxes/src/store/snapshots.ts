import { randomBytes } from 'node:crypto';
import type { Collection, Db, Filter } from '@ars/mongo';
import { COLLECTIONS, type SnapshotDoc } from './collections.js';

export function newSnapshotId(): string {
  return `snap_${randomBytes(12).toString('hex')}`;
}

/** Not being deleted, or its deleter stopped before it finished (claimed before `staleBefore`). */
function unclaimed(staleBefore: Date): Filter<SnapshotDoc> {
  return { $or: [{ deleting_at: { $exists: false } }, { deleting_at: { $lt: staleBefore } }] };
}

/** Snapshots of stopped sandboxes (the archives themselves are files under SNAPSHOT_ROOT). */
export class SnapshotStore {
  private readonly snapshots: Collection<SnapshotDoc>;

  constructor(db: Db) {
    this.snapshots = db.collection<SnapshotDoc>(COLLECTIONS.snapshots);
  }

  async insert(doc: SnapshotDoc): Promise<void> {
    await this.snapshots.insertOne(doc);
  }

  /** The caller's snapshot (another user's, or one being deleted, is as absent as an unknown one). */
  async get(userId: string, id: string): Promise<SnapshotDoc | null> {
    return this.snapshots.findOne({ _id: id, userId, deleting_at: { $exists: false } });
  }

  /** The newest snapshot of the user's workspace session that nobody is deleting. */
  async newestOfWorkspace(userId: string, workspaceSessionId: string): Promise<SnapshotDoc | null> {
    return this.snapshots.findOne({ userId, workspace_session_id: workspaceSessionId, deleting_at: { $exists: false } }, { sort: { created_at: -1, _id: -1 } });
  }

  /** Snapshots taken before `before` that nobody is deleting (oldest first). */
  async olderThan(before: Date, staleBefore: Date, limit: number): Promise<SnapshotDoc[]> {
    return this.snapshots
      .find({ created_at: { $lt: before }, ...unclaimed(staleBefore) })
      .sort({ created_at: 1 })
      .limit(limit)
      .toArray();
  }

  /** The user's snapshots beyond the newest `kept` that nobody is deleting. */
  async beyondNewest(userId: string, kept: number, staleBefore: Date): Promise<SnapshotDoc[]> {
    return this.snapshots
      .find({ userId, ...unclaimed(staleBefore) })
      .sort({ created_at: -1, _id: -1 })
      .skip(kept)
      .limit(100)
      .toArray();
  }

  /**
   * Claims the deletion of a snapshot for `instanceId` (one conditional write, so of several
   * instances exactly one deletes it). False when another one holds it or it is gone.
   */
  async claimDeletion(snapshot: SnapshotDoc, instanceId: string, staleBefore: Date): Promise<boolean> {
    const claimed = await this.snapshots.updateOne(
      { _id: snapshot._id, ...unclaimed(staleBefore) },
      { $set: { deleting_at: new Date(), deleting_by: instanceId } },
    );
    return claimed.modifiedCount === 1;
  }

  /** Removes the record of a snapshot whose deletion `instanceId` claimed (after its archive is gone). */
  async remove(id: string, instanceId: string): Promise<boolean> {
    const removed = await this.snapshots.deleteOne({ _id: id, deleting_by: instanceId });
    return removed.deletedCount === 1;
  }
}
