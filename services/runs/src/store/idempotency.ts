import { COLLECTIONS, type IdempotencyDoc } from './collections.js';
import { isDuplicateKey, type Collection, type Db } from '@ars/mongo';

/**
 * Idempotency-Key records: one per (user, key), holding the body hash and the run the key makes.
 * The unique index decides races; records expire after IDEMPOTENCY_RETENTION_SECONDS (TTL index).
 */
export class IdempotencyStore {
  private readonly records: Collection<IdempotencyDoc>;

  constructor(db: Db) {
    this.records = db.collection<IdempotencyDoc>(COLLECTIONS.idempotency);
  }

  async find(userId: string, key: string): Promise<IdempotencyDoc | null> {
    return this.records.findOne({ userId, key }, { projection: { _id: 0 } });
  }

  /** Claims the key for `candidate`; when another request claimed it first, returns that record. */
  async claim(candidate: IdempotencyDoc): Promise<IdempotencyDoc> {
    try {
      await this.records.insertOne({ ...candidate });
      return candidate;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const existing = await this.find(candidate.userId, candidate.key);
      if (!existing) throw new Error('idempotency record vanished after a duplicate key');
      return existing;
    }
  }
}
