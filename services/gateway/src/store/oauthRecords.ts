import { createHash } from 'node:crypto';
import type { CollectionIndexes, Db } from '@ars/mongo';

/**
 * One record of the OAuth authorization server (`oidc-provider`): a client, a grant, an
 * authorization code, an access or refresh token, a session, an interaction. `_id` is
 * `<model>:<SHA-256 of the id>`: the ids of codes, tokens, sessions and interactions are the bearer
 * values themselves, so, as for PATs, only their hash is stored and a copy of the database hands
 * out no working token. The payload is the provider's, without its `jti` (the id again), except a
 * session's (the provider's own login state; it is looked up by uid and must return its id).
 */
export interface OAuthRecordDocument {
  _id: string;
  model: string;
  payload: Record<string, unknown>;
  /** Kept in the clear for `revokeByGrantId`, `findByUid` and `findByUserCode` (none is a bearer value). */
  grantId?: string;
  uid?: string;
  userCode?: string;
  expiresAt?: Date;
  /** The payload carried its id as `jti` (every model but the client): `find` puts it back. */
  idIsJti?: boolean;
}

export const OAUTH_RECORDS = 'oauth_records';
export const oauthRecordIndexes: CollectionIndexes = {
  collection: OAUTH_RECORDS,
  indexes: [
    { key: { expiresAt: 1 }, name: 'expires_ttl', expireAfterSeconds: 0 },
    { key: { grantId: 1 }, name: 'grant', sparse: true },
    { key: { uid: 1 }, name: 'uid', sparse: true },
    { key: { userCode: 1 }, name: 'user_code', sparse: true },
    // Offboarding finds a user's grants, sessions and tokens by their account.
    { key: { 'payload.accountId': 1 }, name: 'account', sparse: true },
  ],
};

/** The adapter interface `oidc-provider` calls, one instance per model name. */
export interface OAuthAdapter {
  upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void>;
  find(id: string): Promise<Record<string, unknown> | undefined>;
  findByUid(uid: string): Promise<Record<string, unknown> | undefined>;
  findByUserCode(userCode: string): Promise<Record<string, unknown> | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

export type OAuthAdapterClass = new (model: string) => OAuthAdapter;

export function recordIdOf(model: string, id: string): string {
  return `${model}:${createHash('sha256').update(id, 'utf8').digest('base64url')}`;
}

export interface OAuthRecordsOptions {
  /**
   * How long a dynamically registered client is kept after its last use: its registration, or an
   * authorization code, grant or token issued to it. Registration is open (any MCP client may
   * register), so without this every client ever registered would stay forever.
   */
  unusedClientTtlSeconds: number;
}

/**
 * The adapter class `oidc-provider` is configured with, over the gateway's `oauth_records`. A client
 * record expires `unusedClientTtlSeconds` after its last use and never before a record issued to it
 * (a refresh token, a grant): each such record pushes the client's expiry out, never in.
 */
export function oauthAdapterClass(db: Db, options: OAuthRecordsOptions): OAuthAdapterClass {
  const records = db.collection<OAuthRecordDocument>(OAUTH_RECORDS);
  const unusedClientTtlMs = options.unusedClientTtlSeconds * 1000;

  const keepClientUntil = async (clientId: string, until: Date): Promise<void> => {
    await records.updateOne({ _id: recordIdOf('Client', clientId), model: 'Client' }, { $max: { expiresAt: until } });
  };

  const live = (record: OAuthRecordDocument | null, id: string | undefined): Record<string, unknown> | undefined => {
    if (!record) return undefined;
    // The TTL monitor runs once a minute: an expired record is treated as absent at once.
    if (record.expiresAt && record.expiresAt.getTime() <= Date.now()) return undefined;
    return id === undefined || !record.idIsJti ? record.payload : { ...record.payload, jti: id };
  };

  return class MongoOAuthAdapter implements OAuthAdapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void> {
      const { jti: _jti, ...withoutId } = payload;
      // A session is also found by its uid, which must hand its id back: it alone keeps `jti`.
      const stored = this.model === 'Session' ? payload : withoutId;
      const document: Omit<OAuthRecordDocument, '_id'> = { model: this.model, payload: stored };
      if ('jti' in payload) document.idIsJti = true;
      if (typeof payload.grantId === 'string') document.grantId = payload.grantId;
      if (typeof payload.uid === 'string') document.uid = payload.uid;
      if (typeof payload.userCode === 'string') document.userCode = payload.userCode;
      if (expiresIn) document.expiresAt = new Date(Date.now() + expiresIn * 1000);
      if (this.model === 'Client' && !expiresIn) document.expiresAt = new Date(Date.now() + unusedClientTtlMs);
      await records.replaceOne({ _id: recordIdOf(this.model, id) }, document, { upsert: true });
      if (this.model !== 'Client' && typeof payload.clientId === 'string') {
        const until = Math.max(Date.now() + unusedClientTtlMs, document.expiresAt?.getTime() ?? 0);
        await keepClientUntil(payload.clientId, new Date(until));
      }
    }

    async find(id: string): Promise<Record<string, unknown> | undefined> {
      return live(await records.findOne({ _id: recordIdOf(this.model, id) }), id);
    }

    async findByUid(uid: string): Promise<Record<string, unknown> | undefined> {
      const record = await records.findOne({ model: this.model, uid });
      return live(record, undefined);
    }

    async findByUserCode(userCode: string): Promise<Record<string, unknown> | undefined> {
      return live(await records.findOne({ model: this.model, userCode }), undefined);
    }

    async consume(id: string): Promise<void> {
      await records.updateOne({ _id: recordIdOf(this.model, id) }, { $set: { 'payload.consumed': Math.floor(Date.now() / 1000) } });
    }

    async destroy(id: string): Promise<void> {
      await records.deleteOne({ _id: recordIdOf(this.model, id) });
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await records.deleteMany({ grantId });
    }
  };
}

/** A user's OAuth grants to MCP clients, as a whole (offboarding). */
export interface OAuthGrantStore {
  /** Deletes every grant of the user with its codes and tokens, and the user's authorization-server sessions; how many grants. */
  revokeAllOf(userId: string): Promise<number>;
}

export function oauthGrantStore(db: Db): OAuthGrantStore {
  const records = db.collection<OAuthRecordDocument>(OAUTH_RECORDS);
  return {
    async revokeAllOf(userId) {
      // Grant records keep their id only hashed; the codes and tokens issued under a grant name it (`grantId`).
      const grantIds = await records.distinct('grantId', { 'payload.accountId': userId, grantId: { $exists: true } });
      const grants = await records.countDocuments({ model: 'Grant', 'payload.accountId': userId });
      if (grantIds.length > 0) await records.deleteMany({ grantId: { $in: grantIds } });
      await records.deleteMany({ 'payload.accountId': userId });
      return grants;
    },
  };
}
