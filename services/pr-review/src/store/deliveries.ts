import type { Collection, Db } from '@ars/mongo';
import { COLLECTIONS, type DeliveryDoc, type DeliveryOutcome } from './collections.js';

const DUPLICATE_KEY = 11000;

/** GitHub deliveries by id: one is handled once, a redelivery answered with what it came to. */
export class DeliveryStore {
  private readonly deliveries: Collection<DeliveryDoc>;

  constructor(db: Db) {
    this.deliveries = db.collection<DeliveryDoc>(COLLECTIONS.deliveries);
  }

  /** Takes the delivery: null when it is new (now ours to handle), else the earlier one. */
  async claim(id: string, event: string): Promise<DeliveryDoc | null> {
    try {
      await this.deliveries.insertOne({ _id: id, event, outcome: null, receivedAt: new Date() });
      return null;
    } catch (error) {
      if ((error as { code?: number }).code !== DUPLICATE_KEY) throw error;
      return this.deliveries.findOne({ _id: id });
    }
  }

  async settle(id: string, outcome: DeliveryOutcome): Promise<void> {
    await this.deliveries.updateOne({ _id: id }, { $set: { outcome } });
  }

  /** Forgets a delivery that failed midway, so GitHub's redelivery is handled afresh. */
  async release(id: string): Promise<void> {
    await this.deliveries.deleteOne({ _id: id, outcome: null });
  }
}
