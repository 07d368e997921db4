import type { Collection, Db } from '@ars/mongo';
import type { SourceHostProvider } from '@ars/source-host';
import { COLLECTIONS, type InstallationAccessDoc, type RepoAccessDoc, type RepoDoc } from './collections.js';
import { substringPattern } from '../domain/repos.js';

/** What one user reaches of one provider: installations, and repositories in them. */
export interface UserReach {
  installationIds: readonly number[];
  repos: readonly RepoDoc[];
}

/**
 * Who reaches what: the one question every tenancy rule of the catalog asks. A user reaches a
 * repository only through a record here — the local installation's user from its making, a GitHub
 * user from what GitHub listed for their token at the last check.
 */
export class AccessStore {
  private readonly installations: Collection<InstallationAccessDoc>;
  private readonly repos: Collection<RepoAccessDoc>;

  constructor(db: Db) {
    this.installations = db.collection<InstallationAccessDoc>(COLLECTIONS.installationAccess);
    this.repos = db.collection<RepoAccessDoc>(COLLECTIONS.repoAccess);
  }

  /** Gives the user the installation and these repositories of it (kept when already given). */
  async grant(userId: string, provider: SourceHostProvider, installationId: number, repos: readonly RepoDoc[]): Promise<void> {
    const checkedAt = new Date();
    await this.installations.updateOne(
      { _id: `${userId}:${installationId}` },
      { $set: { checkedAt }, $setOnInsert: { userId, installationId, provider } },
      { upsert: true },
    );
    if (repos.length === 0) return;
    await this.repos.bulkWrite(
      repos.map((repo) => ({
        updateOne: {
          filter: { _id: `${userId}:${repo._id}` },
          update: {
            $set: { full_name: repo.full_name, installationId, checkedAt },
            $setOnInsert: { userId, repoId: repo._id, provider, grantedAt: checkedAt },
          },
          upsert: true,
        },
      })),
      { ordered: false },
    );
  }

  /**
   * Makes the user's reach of `provider` exactly `reach`: what is in it is granted, every other
   * record of that provider withdrawn (a user GitHub no longer shows a repository to loses it).
   */
  async reconcile(userId: string, provider: SourceHostProvider, reach: UserReach, reposByInstallation: Map<number, RepoDoc[]>): Promise<void> {
    for (const installationId of reach.installationIds) await this.grant(userId, provider, installationId, reposByInstallation.get(installationId) ?? []);
    await this.installations.deleteMany({ userId, provider, installationId: { $nin: [...reach.installationIds] } });
    await this.repos.deleteMany({ userId, provider, repoId: { $nin: reach.repos.map((repo) => repo._id) } });
  }

  /** The user reaches nothing of `provider` any more (their link to it is gone). */
  async withdrawUser(userId: string, provider: SourceHostProvider): Promise<void> {
    await Promise.all([this.installations.deleteMany({ userId, provider }), this.repos.deleteMany({ userId, provider })]);
  }

  /** Nobody reaches these repositories any more (removed from the installation). */
  async withdrawRepos(repoIds: readonly string[]): Promise<void> {
    if (repoIds.length > 0) await this.repos.deleteMany({ repoId: { $in: [...repoIds] } });
  }

  /** Nobody reaches the installation or anything in it (uninstalled). */
  async withdrawInstallation(installationId: number): Promise<void> {
    await Promise.all([this.installations.deleteMany({ installationId }), this.repos.deleteMany({ installationId })]);
  }

  /** A repository's new `full_name` (renamed or transferred) in every record of it. */
  async renameRepo(repoId: string, fullName: string): Promise<void> {
    await this.repos.updateMany({ repoId }, { $set: { full_name: fullName } });
  }

  /**
   * The user's repositories by `full_name` (then id), optionally those whose `full_name` contains `q`
   * (any case), removed ones left out: one query, the access records joined to their repositories
   * (a second round trip for the repositories was the larger part of `GET /repos`, issue 33). No
   * `$project` stage: the access records' few fields come along and are dropped here, where a stage
   * more cost the development MongoDB server a second pipeline of its own per request (a fifth of its
   * time on `GET /repos`).
   */
  async reposOf(userId: string, options: { q?: string | undefined; limit: number }): Promise<RepoDoc[]> {
    const filter = options.q ? { userId, full_name: { $regex: substringPattern(options.q) } } : { userId };
    const joined = await this.repos
      .aggregate<{ repo: RepoDoc[] }>([
        { $match: filter },
        { $sort: { full_name: 1, repoId: 1 } },
        { $limit: options.limit },
        { $lookup: { from: COLLECTIONS.repos, localField: 'repoId', foreignField: '_id', as: 'repo' } },
      ])
      .toArray();
    return joined.flatMap(({ repo: [repo] }) => (repo && !repo.removedAt ? [repo] : []));
  }

  /** How many of the installation's repositories the user reaches, and the first `limit` by `full_name`. */
  async reposIn(userId: string, installationId: number, limit: number): Promise<{ count: number; first: RepoAccessDoc[] }> {
    const filter = { userId, installationId };
    const [count, first] = await Promise.all([
      this.repos.countDocuments(filter),
      this.repos.find(filter).sort({ full_name: 1, repoId: 1 }).limit(limit).toArray(),
    ]);
    return { count, first };
  }

  async reachesRepo(userId: string, repoId: string): Promise<boolean> {
    return (await this.repos.countDocuments({ _id: `${userId}:${repoId}` }, { limit: 1 })) > 0;
  }

  async reachesInstallation(userId: string, installationId: number): Promise<boolean> {
    return (await this.installations.countDocuments({ _id: `${userId}:${installationId}` }, { limit: 1 })) > 0;
  }

  /** The installations of `provider` the user reaches. */
  async installationsOf(userId: string, provider: SourceHostProvider): Promise<number[]> {
    const docs = await this.installations.find({ userId, provider }).sort({ installationId: 1 }).toArray();
    return docs.map((doc) => doc.installationId);
  }

  /** The users who reach the repository, earliest granted first. */
  async usersOf(repoId: string): Promise<string[]> {
    const docs = await this.repos.find({ repoId }).sort({ grantedAt: 1 }).limit(100).toArray();
    return docs.map((doc) => doc.userId);
  }
}
