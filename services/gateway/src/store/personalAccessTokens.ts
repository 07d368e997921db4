import { randomBytes } from 'node:crypto';
import type { CollectionIndexes, Db } from '@ars/mongo';
import type { Scope } from '../domain/scopes.js';

/** A PAT: only the SHA-256 of the plaintext and its first 12 characters are kept. */
export interface PersonalAccessTokenDocument {
  _id: string;
  userId: string;
  name: string;
  tokenHash: string;
  prefix: string;
  scopes: Scope[];
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  /** When a request last authenticated with it, to the minute (TOKEN_USE_RESOLUTION_MS); absent until its first use. */
  lastUsedAt?: Date;
}

/** How fresh `lastUsedAt` is kept: one write per token and minute at most, not one per request. */
export const TOKEN_USE_RESOLUTION_MS = 60_000;

export const TOKENS = 'personal_access_tokens';
export const tokenIndexes: CollectionIndexes = {
  collection: TOKENS,
  indexes: [
    { key: { tokenHash: 1 }, name: 'token_hash', unique: true },
    { key: { userId: 1, createdAt: -1 }, name: 'user_created' },
  ],
};

export interface NewToken {
  userId: string;
  name: string;
  tokenHash: string;
  prefix: string;
  scopes: Scope[];
  expiresAt: Date | null;
}

/**
 * Marks revoked PATs where every gateway looks on every request (Redis), before MongoDB records the
 * revocation: a gateway that keeps a copy of the PAT (auth/patCache.ts) refuses it at its next
 * request. A mark that cannot be set fails the revocation (nothing is revoked; the caller retries).
 */
export interface RevocationMarks {
  markRevoked(tokenIds: readonly string[]): Promise<void>;
}

export interface PersonalAccessTokenStore {
  create(token: NewToken): Promise<PersonalAccessTokenDocument>;
  /** The PAT of this hash, as stored now. */
  findByHash(tokenHash: string): Promise<PersonalAccessTokenDocument | undefined>;
  listForUser(userId: string): Promise<PersonalAccessTokenDocument[]>;
  /** Marks it, then sets `revokedAt` (kept when already revoked); undefined when the user has no such token. */
  revoke(userId: string, id: string, now?: Date): Promise<PersonalAccessTokenDocument | undefined>;
  /** Marks and revokes every live token of the user at once; how many. */
  revokeAllOf(userId: string, now?: Date): Promise<number>;
  /** Records a use at `at` (never moving `lastUsedAt` back). */
  markUsed(id: string, at: Date): Promise<void>;
}

export function personalAccessTokenStore(db: Db, marks: RevocationMarks): PersonalAccessTokenStore {
  const tokens = db.collection<PersonalAccessTokenDocument>(TOKENS);
  return {
    async create(token) {
      const document: PersonalAccessTokenDocument = { _id: `pat_${randomBytes(12).toString('hex')}`, ...token, createdAt: new Date(), revokedAt: null };
      await tokens.insertOne(document);
      return document;
    },
    async findByHash(tokenHash) {
      return (await tokens.findOne({ tokenHash })) ?? undefined;
    },
    async listForUser(userId) {
      return tokens.find({ userId }).sort({ createdAt: -1 }).toArray();
    },
    async revoke(userId, id, now = new Date()) {
      // Only the user's own token is marked: an id of someone else's marks nothing.
      const token = await tokens.findOne({ _id: id, userId });
      if (!token) return undefined;
      if (token.revokedAt) return token;
      await marks.markRevoked([id]);
      await tokens.updateOne({ _id: id, userId, revokedAt: null }, { $set: { revokedAt: now } });
      return (await tokens.findOne({ _id: id, userId })) ?? undefined;
    },
    async revokeAllOf(userId, now = new Date()) {
      const live = await tokens.find({ userId, revokedAt: null }, { projection: { _id: 1 } }).toArray();
      await marks.markRevoked(live.map((token) => token._id));
      const revoked = (await tokens.updateMany({ userId, revokedAt: null }, { $set: { revokedAt: now } })).modifiedCount;
      // A token made between the look and the write is revoked too: it is marked after.
      const marked = new Set(live.map((token) => token._id));
      const late = await tokens.find({ userId, revokedAt: now }, { projection: { _id: 1 } }).toArray();
      await marks.markRevoked(late.map((token) => token._id).filter((id) => !marked.has(id)));
      return revoked;
    },
    async markUsed(id, at) {
      await tokens.updateOne({ _id: id }, { $max: { lastUsedAt: at } });
    },
  };
}
