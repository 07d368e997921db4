import type { Collection, Db } from '@ars/mongo';
import { COLLECTIONS, type RunEventDoc } from './collections.js';
import { isDuplicateKey } from './runs.js';

export class RunEventStore {
  private readonly events: Collection<RunEventDoc>;

  constructor(db: Db) {
    this.events = db.collection<RunEventDoc>(COLLECTIONS.runEvents);
  }

  /** Stores the event once: a redelivered or re-sent (runId, seq) is refused by the unique index. False then. */
  async insert(doc: RunEventDoc): Promise<boolean> {
    try {
      await this.events.insertOne(doc);
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  /** The run's events oldest first (by seq), at most `limit`. */
  async list(runId: string, limit: number): Promise<RunEventDoc[]> {
    return this.events.find({ runId }).sort({ seq: 1 }).limit(limit).toArray();
  }

  async count(runId: string): Promise<number> {
    return this.events.countDocuments({ runId });
  }
}
