import type { Collection, Db } from '@ars/mongo';
import type { SourceHostProvider } from '@ars/source-host';
import { COLLECTIONS, type CounterDoc, type InstallationDoc } from './collections.js';

export class InstallationStore {
  private readonly counters: Collection<CounterDoc>;
  private readonly installations: Collection<InstallationDoc>;

  constructor(db: Db) {
    this.counters = db.collection<CounterDoc>(COLLECTIONS.counters);
    this.installations = db.collection<InstallationDoc>(COLLECTIONS.installations);
  }

  /** The next installation id: one atomic `$inc` on a counter document (upserted on first use). */
  async nextId(): Promise<number> {
    const counter = await this.counters.findOneAndUpdate({ _id: 'installations' }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' });
    if (!counter) throw new Error('installation counter was not returned');
    return counter.seq;
  }

  async create(input: { userId: string; account: string; provider: SourceHostProvider; externalId: number | null; id?: number }): Promise<InstallationDoc> {
    const doc: InstallationDoc = {
      _id: input.id ?? (await this.nextId()),
      userId: input.userId,
      account: input.account,
      provider: input.provider,
      externalId: input.externalId,
      createdAt: new Date(),
    };
    await this.installations.insertOne(doc);
    return doc;
  }

  /** The user's installation, or null when it does not exist or belongs to someone else. */
  async findOwned(userId: string, id: number): Promise<InstallationDoc | null> {
    return this.installations.findOne({ _id: id, userId });
  }

  async findByExternalId(provider: SourceHostProvider, externalId: number): Promise<InstallationDoc | null> {
    return this.installations.findOne({ provider, externalId });
  }
}
