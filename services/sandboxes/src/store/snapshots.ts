import { randomBytes } from 'node:crypto';
import type { Collection, Db } from '@ars/mongo';
import { COLLECTIONS, type SnapshotDoc } from './collections.js';

export function newSnapshotId(): string {
  return `snap_${randomBytes(12).toString('hex')}`;
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

  /** The caller's snapshot (another user's is as absent as an unknown one). */
  async get(userId: string, id: string): Promise<SnapshotDoc | null> {
    return this.snapshots.findOne({ _id: id, userId });
  }
}
