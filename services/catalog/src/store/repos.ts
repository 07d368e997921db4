import { randomBytes } from 'node:crypto';
import type { Collection, Db } from '@ars/mongo';
import { COLLECTIONS, type RepoDoc } from './collections.js';
import { substringPattern } from '../domain/repos.js';

export interface NewRepo {
  userId: string;
  installationId: number;
  fullName: string;
  defaultBranch: string | null;
  cloneUrl: string;
}

export class RepoStore {
  private readonly repos: Collection<RepoDoc>;

  constructor(db: Db) {
    this.repos = db.collection<RepoDoc>(COLLECTIONS.repos);
  }

  /** Adds the repository to its installation, or refreshes it when `(installationId, full_name)` exists. */
  async upsert(input: NewRepo): Promise<RepoDoc> {
    const doc = await this.repos.findOneAndUpdate(
      { installationId: input.installationId, full_name: input.fullName },
      {
        $set: { userId: input.userId, default_branch: input.defaultBranch, clone_url: input.cloneUrl },
        $setOnInsert: { _id: randomBytes(12).toString('hex'), root_directory: null, createdAt: new Date() },
      },
      { upsert: true, returnDocument: 'after' },
    );
    if (!doc) throw new Error('repository upsert returned nothing');
    return doc;
  }

  /** The user's repositories by `full_name`, optionally those whose `full_name` contains `q` (any case). */
  async list(userId: string, options: { q?: string | undefined; limit: number }): Promise<RepoDoc[]> {
    const filter = options.q ? { userId, full_name: { $regex: substringPattern(options.q) } } : { userId };
    return this.repos.find(filter).sort({ full_name: 1, _id: 1 }).limit(options.limit).toArray();
  }

  async findOwned(userId: string, id: string): Promise<RepoDoc | null> {
    return this.repos.findOne({ _id: id, userId });
  }

  /** The repository of an installation by its full name on the source host (a webhook names it so). */
  async findInInstallation(installationId: number, fullName: string): Promise<RepoDoc | null> {
    return this.repos.findOne({ installationId, full_name: fullName });
  }
}
