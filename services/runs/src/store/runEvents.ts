import { COLLECTIONS, type RunEventDoc } from './collections.js';
import { onlyDuplicateKeys, type Collection, type Db } from '@ars/mongo';

export class RunEventStore {
  private readonly events: Collection<RunEventDoc>;

  constructor(db: Db) {
    this.events = db.collection<RunEventDoc>(COLLECTIONS.runEvents);
  }

  /**
   * Stores each event once, in one write: a redelivered or re-sent (runId, seq) is refused by the
   * unique index and the others are stored all the same. Resolves how many were new.
   */
  async insertMany(docs: RunEventDoc[]): Promise<number> {
    if (docs.length === 0) return 0;
    try {
      return (await this.events.insertMany(docs, { ordered: false })).insertedCount;
    } catch (error) {
      if (onlyDuplicateKeys(error)) return (error as { insertedCount?: number }).insertedCount ?? 0;
      throw error;
    }
  }

  /** The run's events oldest first (by seq), at most `limit`; with `afterSeq`, only those after it. */
  async list(runId: string, limit: number, afterSeq?: number): Promise<RunEventDoc[]> {
    const filter = afterSeq === undefined ? { runId } : { runId, seq: { $gt: afterSeq } };
    return this.events.find(filter).sort({ seq: 1 }).limit(limit).toArray();
  }

  /** The seq of the run's event with that id, or undefined when the run has no such event. */
  async seqOf(runId: string, eventId: string): Promise<number | undefined> {
    const event = await this.events.findOne({ _id: eventId, runId }, { projection: { seq: 1 } });
    return event?.seq;
  }

  /** The message of the run's last event of `type` (highest seq), or null without one. */
  async lastMessage(runId: string, type: string): Promise<string | null> {
    const [last] = await this.events.find({ runId, type }).sort({ seq: -1 }).limit(1).toArray();
    return last?.fullText ?? last?.message ?? null;
  }

  async count(runId: string): Promise<number> {
    return this.events.countDocuments({ runId });
  }
}
