import type { CollectionIndexes, Db } from '@ars/mongo';
import type { Scope } from '../domain/scopes.js';

/** A CLI login code waiting to be exchanged; `_id` is the SHA-256 of the code (the code itself is never stored). */
export interface CliLoginCodeDocument {
  _id: string;
  userId: string;
  scopes: Scope[];
  codeChallenge: string;
  redirectUri: string;
  clientName: string;
  createdAt: Date;
  expiresAt: Date;
}

export const CLI_LOGIN_CODES = 'cli_login_codes';
export const cliLoginCodeIndexes: CollectionIndexes = {
  collection: CLI_LOGIN_CODES,
  // Expired codes are refused by `take`; the TTL index only keeps the collection small.
  indexes: [{ key: { expiresAt: 1 }, name: 'expires_ttl', expireAfterSeconds: 0 }],
};

export interface CliLoginCodeStore {
  create(code: Omit<CliLoginCodeDocument, 'createdAt' | 'expiresAt'>, ttlSeconds: number): Promise<void>;
  /**
   * Removes the code and answers it, in one atomic step: of two exchanges racing, one gets it.
   * A code past its expiry is removed too and answered as absent.
   */
  take(codeHash: string, now?: Date): Promise<CliLoginCodeDocument | undefined>;
}

export function cliLoginCodeStore(db: Db): CliLoginCodeStore {
  const codes = db.collection<CliLoginCodeDocument>(CLI_LOGIN_CODES);
  return {
    async create(code, ttlSeconds) {
      const createdAt = new Date();
      await codes.insertOne({ ...code, createdAt, expiresAt: new Date(createdAt.getTime() + ttlSeconds * 1000) });
    },
    async take(codeHash, now = new Date()) {
      const taken = await codes.findOneAndDelete({ _id: codeHash });
      if (!taken || taken.expiresAt.getTime() <= now.getTime()) return undefined;
      return taken;
    },
  };
}
