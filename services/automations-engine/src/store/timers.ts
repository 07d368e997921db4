import type { Collection, Db } from '@ars/mongo';
import { COLLECTIONS, type TimerDoc } from './collections.js';

/** Durable timers: set and cleared by their id (idempotent), fired by the timer loop once due. */
export class TimerStore {
  private readonly timers: Collection<TimerDoc>;

  constructor(db: Db) {
    this.timers = db.collection<TimerDoc>(COLLECTIONS.timers);
  }

  /** Sets the timer (again: the same id and due time, nothing changes). */
  async set(timer: TimerDoc): Promise<void> {
    const { _id, ...fields } = timer;
    await this.timers.updateOne({ _id }, { $set: fields }, { upsert: true });
  }

  async clear(id: string): Promise<void> {
    await this.timers.deleteOne({ _id: id });
  }

  /** Timers due at `now`, the earliest first. */
  async due(now: Date, limit: number): Promise<TimerDoc[]> {
    return this.timers
      .find({ dueAt: { $lte: now } })
      .sort({ dueAt: 1 })
      .limit(limit)
      .toArray();
  }
}
