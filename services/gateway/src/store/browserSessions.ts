import type { CollectionIndexes, Db } from '@ars/mongo';

/** A browser session; `_id` is the SHA-256 of the cookie value (the value itself is never stored). */
export interface SessionDocument {
  _id: string;
  userId: string;
  createdAt: Date;
  expiresAt: Date;
  /** The ID token of the sign-in that made it (OpenID Connect): the `id_token_hint` of the provider's sign-out. */
  idToken?: string;
}

export const SESSIONS = 'sessions';
export const sessionIndexes: CollectionIndexes = {
  collection: SESSIONS,
  indexes: [
    { key: { expiresAt: 1 }, name: 'expires_ttl', expireAfterSeconds: 0 },
    { key: { userId: 1 }, name: 'user' },
  ],
};

export interface BrowserSessionStore {
  create(idHash: string, userId: string, ttlSeconds: number, signIn?: { idToken: string }): Promise<SessionDocument>;
  /** The live session with that hash (an expired one is treated as absent). */
  find(idHash: string, now?: Date): Promise<SessionDocument | undefined>;
  remove(idHash: string): Promise<void>;
  /** Deletes every session of the user; how many there were. */
  removeAllOf(userId: string): Promise<number>;
}

export function browserSessionStore(db: Db): BrowserSessionStore {
  const sessions = db.collection<SessionDocument>(SESSIONS);
  return {
    async create(idHash, userId, ttlSeconds, signIn) {
      const createdAt = new Date();
      const session: SessionDocument = {
        _id: idHash,
        userId,
        createdAt,
        expiresAt: new Date(createdAt.getTime() + ttlSeconds * 1000),
        ...(signIn ? { idToken: signIn.idToken } : {}),
      };
      await sessions.insertOne(session);
      return session;
    },
    async find(idHash, now = new Date()) {
      const session = await sessions.findOne({ _id: idHash });
      if (!session || session.expiresAt.getTime() <= now.getTime()) return undefined;
      return session;
    },
    async remove(idHash) {
      await sessions.deleteOne({ _id: idHash });
    },
    async removeAllOf(userId) {
      return (await sessions.deleteMany({ userId })).deletedCount;
    },
  };
}
