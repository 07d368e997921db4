import type { CollectionIndexes, Db } from '@ars/mongo';

/**
 * A one-time code waiting to be used: `_id` is the code's SHA-256 (domain/oneTimeCodes.ts; the code
 * itself is never stored), `grant` what using it gives.
 */
export interface OneTimeCodeDocument<Grant> {
  _id: string;
  grant: Grant;
  createdAt: Date;
  expiresAt: Date;
}

/** The CLI login's codes (the grant: the user, the scopes, the PKCE challenge, the redirect URI). */
export const CLI_LOGIN_CODES = 'cli_login_codes';
/** Browser sign-ins under way (the grant: the attempt's state, nonce, PKCE verifier and returnTo). */
export const SIGN_IN_ATTEMPTS = 'sign_in_attempts';
/** Connect GitHub under way (the grant: its user, and after GitHub's Setup URL the PKCE verifier and installation id). */
export const GITHUB_CONNECT_ATTEMPTS = 'github_connect_attempts';
/** Development sign-in links (the grant: the user to sign the browser in as). */
export const DEV_SIGN_IN_CODES = 'dev_sign_in_codes';

export function oneTimeCodeIndexes(collection: string): CollectionIndexes {
  // Expired codes are refused by `take`; the TTL index only keeps the collection small.
  return { collection, indexes: [{ key: { expiresAt: 1 }, name: 'expires_ttl', expireAfterSeconds: 0 }] };
}

export interface OneTimeCodeStore<Grant> {
  create(codeHash: string, grant: Grant, ttlSeconds: number): Promise<void>;
  /**
   * Removes the code and answers its grant, in one atomic step: of two uses racing, one gets it.
   * A code past its expiry is removed too and answered as absent.
   */
  take(codeHash: string, now?: Date): Promise<Grant | undefined>;
}

export function oneTimeCodeStore<Grant>(db: Db, collection: string): OneTimeCodeStore<Grant> {
  const codes = db.collection<OneTimeCodeDocument<Grant>>(collection);
  return {
    async create(codeHash, grant, ttlSeconds) {
      const createdAt = new Date();
      const document: OneTimeCodeDocument<Grant> = { _id: codeHash, grant, createdAt, expiresAt: new Date(createdAt.getTime() + ttlSeconds * 1000) };
      // The driver's filter and insert types are conditional on the schema, which a type parameter leaves unresolved.
      await codes.insertOne(document as Parameters<typeof codes.insertOne>[0]);
    },
    async take(codeHash, now = new Date()) {
      const taken = (await codes.findOneAndDelete({ _id: codeHash } as Parameters<typeof codes.findOneAndDelete>[0])) as OneTimeCodeDocument<Grant> | null;
      if (!taken || taken.expiresAt.getTime() <= now.getTime()) return undefined;
      return taken.grant;
    },
  };
}
