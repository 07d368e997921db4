import type { Collection, Db } from '@ars/mongo';
import type { SourceHostProvider } from '@ars/source-host';
import { COLLECTIONS, type CounterDoc, type InstallationDoc } from './collections.js';

/** An installation as GitHub names it in a user's list or a webhook. */
export interface GitHubInstallationSeen {
  externalId: number;
  account: string;
  suspendedAt: Date | null;
}

const DUPLICATE_KEY = 11000;

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

  /** A local installation, made for one development user. */
  async createLocal(input: { id: number; account: string; userId: string }): Promise<InstallationDoc> {
    const doc: InstallationDoc = {
      _id: input.id,
      account: input.account,
      provider: 'local',
      externalId: null,
      connectedBy: input.userId,
      suspendedAt: null,
      deletedAt: null,
      createdAt: new Date(),
    };
    await this.installations.insertOne(doc);
    return doc;
  }

  /**
   * The GitHub installation of `externalId`, made on first sight (a user's list or a webhook, whichever
   * comes first) with an id of ours, its account kept current (a delivery that names none leaves it). A deleted one stays deleted.
   */
  async upsertGitHub(seen: GitHubInstallationSeen, connectedBy: string | null): Promise<InstallationDoc> {
    const existing = await this.findByExternalId('github', seen.externalId);
    if (existing) {
      if (existing.deletedAt) return existing;
      const set: Partial<InstallationDoc> = seen.account ? { account: seen.account } : {};
      if (connectedBy && !existing.connectedBy) set.connectedBy = connectedBy;
      return (await this.installations.findOneAndUpdate({ _id: existing._id }, { $set: set }, { returnDocument: 'after' })) ?? existing;
    }
    const id = await this.nextId();
    const made = await this.installations
      .findOneAndUpdate(
        { provider: 'github', externalId: seen.externalId },
        {
          $setOnInsert: {
            _id: id,
            account: seen.account,
            provider: 'github',
            externalId: seen.externalId,
            connectedBy,
            suspendedAt: seen.suspendedAt,
            deletedAt: null,
            createdAt: new Date(),
          },
        },
        { upsert: true, returnDocument: 'after' },
      )
      // Two first sights at once: the unique (provider, externalId) index lets one insert; the other reads it.
      .catch(async (error: unknown) => {
        if ((error as { code?: number }).code !== DUPLICATE_KEY) throw error;
        return this.findByExternalId('github', seen.externalId);
      });
    if (!made) throw new Error('installation upsert returned nothing');
    return made;
  }

  async find(id: number): Promise<InstallationDoc | null> {
    return this.installations.findOne({ _id: id });
  }

  async findByExternalId(provider: SourceHostProvider, externalId: number): Promise<InstallationDoc | null> {
    return this.installations.findOne({ provider, externalId });
  }

  async findMany(ids: readonly number[]): Promise<InstallationDoc[]> {
    return this.installations.find({ _id: { $in: [...ids] } }).toArray();
  }

  async setSuspended(id: number, suspendedAt: Date | null): Promise<void> {
    await this.installations.updateOne({ _id: id, deletedAt: null }, { $set: { suspendedAt } });
  }

  async markDeleted(id: number): Promise<void> {
    await this.installations.updateOne({ _id: id, deletedAt: null }, { $set: { deletedAt: new Date() } });
  }

  /** Installations still carrying the one user of before access records (see AccessStore.adoptLegacyOwners). */
  async withLegacyOwner(): Promise<InstallationDoc[]> {
    return this.installations.find({ userId: { $type: 'string' } }).toArray();
  }

  async forgetLegacyOwner(id: number, userId: string): Promise<void> {
    await this.installations.updateOne({ _id: id }, { $unset: { userId: '' }, $set: { connectedBy: userId } });
  }
}
