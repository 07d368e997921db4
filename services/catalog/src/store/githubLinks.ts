import type { Collection, Db } from '@ars/mongo';
import type { SecretBox } from '@ars/secret-box';
import { COLLECTIONS, type GitHubLinkDoc } from './collections.js';

const refreshTokenContext = (userId: string): string => `github-refresh-token:${userId}`;

/** A user's GitHub account and, sealed, the refresh token that lets the catalog recheck what they reach. */
export class GitHubLinkStore {
  private readonly links: Collection<GitHubLinkDoc>;

  constructor(
    db: Db,
    private readonly secrets: SecretBox,
  ) {
    this.links = db.collection<GitHubLinkDoc>(COLLECTIONS.githubLinks);
  }

  /** Records the link; a refresh token is sealed (AES-256-GCM, bound to the user), never stored as it is. */
  async save(
    userId: string,
    input: { githubUserId: number; login: string; refreshToken: string | null; refreshTokenExpiresIn: number | null },
  ): Promise<GitHubLinkDoc> {
    const checkedAt = new Date();
    const doc: GitHubLinkDoc = {
      _id: userId,
      githubUserId: input.githubUserId,
      login: input.login,
      refreshToken: input.refreshToken ? this.secrets.seal(input.refreshToken, refreshTokenContext(userId)) : null,
      refreshTokenExpiresAt: input.refreshToken && input.refreshTokenExpiresIn ? new Date(checkedAt.getTime() + input.refreshTokenExpiresIn * 1000) : null,
      checkedAt,
    };
    await this.links.replaceOne({ _id: userId }, doc, { upsert: true });
    return doc;
  }

  async find(userId: string): Promise<GitHubLinkDoc | null> {
    return this.links.findOne({ _id: userId });
  }

  /** The link's refresh token, opened; null when there is none or it no longer opens (a retired key). */
  refreshTokenOf(link: GitHubLinkDoc): string | null {
    if (!link.refreshToken) return null;
    try {
      return this.secrets.open(link.refreshToken, refreshTokenContext(link._id));
    } catch {
      return null;
    }
  }

  /**
   * Takes the link for one recheck (GitHub rotates the refresh token on use, so two at once would spend
   * it twice): the link, or null while another recheck holds it (for at most `holdMs`).
   */
  async holdForRecheck(userId: string, holdMs: number): Promise<GitHubLinkDoc | null> {
    const now = new Date();
    return this.links.findOneAndUpdate(
      { _id: userId, $or: [{ recheckUntil: { $exists: false } }, { recheckUntil: { $lt: now } }] },
      { $set: { recheckUntil: new Date(now.getTime() + holdMs) } },
      { returnDocument: 'after' },
    );
  }

  async release(userId: string): Promise<void> {
    await this.links.updateOne({ _id: userId }, { $unset: { recheckUntil: '' } });
  }

  async remove(userId: string): Promise<void> {
    await this.links.deleteOne({ _id: userId });
  }
}
