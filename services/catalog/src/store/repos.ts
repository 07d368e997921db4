import { randomBytes } from 'node:crypto';
import type { Collection, Db } from '@ars/mongo';
import type { SourceHostRepository } from '@ars/source-host';
import { COLLECTIONS, type RepoDoc } from './collections.js';

export class RepoStore {
  private readonly repos: Collection<RepoDoc>;

  constructor(db: Db) {
    this.repos = db.collection<RepoDoc>(COLLECTIONS.repos);
  }

  /**
   * Records what the source host shows of a repository of the installation, as it is now: found by
   * the host's repository id (GitHub's survives renames and transfers), else by `full_name`; made
   * when new; a removed one the host shows again is back, with its old id.
   */
  async upsert(installationId: number, hosted: SourceHostRepository): Promise<{ repo: RepoDoc; renamedFrom: string | null }> {
    const known =
      (hosted.externalId !== null ? await this.repos.findOne({ installationId, externalId: hosted.externalId }) : null) ??
      (await this.repos.findOne({ installationId, full_name: hosted.fullName }));
    const current = {
      externalId: hosted.externalId,
      full_name: hosted.fullName,
      default_branch: hosted.defaultBranch,
      clone_url: hosted.cloneUrl,
      removedAt: null,
    };
    if (known) {
      const updated = await this.repos.findOneAndUpdate({ _id: known._id }, { $set: current }, { returnDocument: 'after' });
      if (!updated) throw new Error('repository update returned nothing');
      return { repo: updated, renamedFrom: known.full_name === updated.full_name ? null : known.full_name };
    }
    const doc = await this.repos.findOneAndUpdate(
      { installationId, full_name: hosted.fullName },
      { $set: current, $setOnInsert: { _id: randomBytes(12).toString('hex'), installationId, root_directory: null, createdAt: new Date() } },
      { upsert: true, returnDocument: 'after' },
    );
    if (!doc) throw new Error('repository upsert returned nothing');
    return { repo: doc, renamedFrom: null };
  }

  async find(id: string): Promise<RepoDoc | null> {
    return this.repos.findOne({ _id: id });
  }

  /** The repositories the installation has now (not removed). */
  async ofInstallation(installationId: number): Promise<RepoDoc[]> {
    return this.repos.find({ installationId, removedAt: null }).toArray();
  }

  /** The repository of an installation by its full name on the source host (a webhook names it so). */
  async findInInstallation(installationId: number, fullName: string): Promise<RepoDoc | null> {
    return this.repos.findOne({ installationId, full_name: fullName, removedAt: null });
  }

  async markRemoved(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.repos.updateMany({ _id: { $in: [...ids] }, removedAt: null }, { $set: { removedAt: new Date() } });
  }

  /** Repositories still carrying the one user of before access records (see AccessStore.adoptLegacyOwners). */
  async withLegacyOwner(): Promise<RepoDoc[]> {
    return this.repos.find({ userId: { $type: 'string' } }).toArray();
  }

  async forgetLegacyOwner(id: string): Promise<void> {
    await this.repos.updateOne({ _id: id }, { $unset: { userId: '' } });
  }
}
