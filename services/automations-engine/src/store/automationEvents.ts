import type { Collection, Db } from '@ars/mongo';
import { COLLECTIONS, type AutomationEventDoc } from './collections.js';

/** Events of `POST /automations/events`: stored before they are delivered, pending until every live run of the user has them. */
export class AutomationEventStore {
  private readonly events: Collection<AutomationEventDoc>;

  constructor(db: Db) {
    this.events = db.collection<AutomationEventDoc>(COLLECTIONS.events);
  }

  async insert(event: AutomationEventDoc): Promise<void> {
    await this.events.insertOne(event);
  }

  async delivered(id: string): Promise<void> {
    await this.events.updateOne({ _id: id }, { $set: { pending: false } });
  }

  /** Events still pending that arrived before `before` (a delivery that a crash interrupted). */
  async pendingBefore(before: Date, limit: number): Promise<AutomationEventDoc[]> {
    return this.events
      .find({ pending: true, receivedAt: { $lte: before } })
      .sort({ receivedAt: 1 })
      .limit(limit)
      .toArray();
  }
}
