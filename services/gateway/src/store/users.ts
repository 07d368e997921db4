import { randomBytes } from 'node:crypto';
import type { CollectionIndexes, Db } from '@ars/mongo';

/** Who a user is at a sign-in method: the issuer's subject (never an email: identities are never linked by email). */
export interface UserIdentity {
  /** `oidc`: the issuer's `sub`; `github`: GitHub's numeric user id (a login can change hands), the web URL as issuer. */
  method: 'oidc' | 'github';
  issuer: string;
  subject: string;
}

export interface UserDocument {
  _id: string;
  createdAt: Date;
  /** How the account came to be: `dev` for the development account command, else its sign-in method. */
  origin: 'dev' | UserIdentity['method'];
  identity?: UserIdentity;
  /** The verified email and the name the identity provider gave at the last sign-in. */
  email?: string;
  name?: string;
  lastSignInAt?: Date;
  /** Offboarded (`disable-user`): no sign-in, no session, no token since. */
  disabledAt?: Date;
}

/** What a sign-in learned of the user, kept up to date at every sign-in. */
export interface UserProfile {
  email: string | undefined;
  name: string | undefined;
}

export const USERS = 'users';
export const userIndexes: CollectionIndexes = {
  collection: USERS,
  indexes: [
    { key: { createdAt: 1 }, name: 'created' },
    { key: { email: 1 }, name: 'email', sparse: true },
    // One user per identity: a second sign-in finds the first's account, two racing ones make one.
    {
      key: { 'identity.method': 1, 'identity.issuer': 1, 'identity.subject': 1 },
      name: 'identity',
      unique: true,
      partialFilterExpression: { identity: { $exists: true } },
    },
  ],
};

export interface UserStore {
  create(origin: UserDocument['origin']): Promise<UserDocument>;
  /** The user of this identity, made at its first sign-in; the profile is refreshed every time. */
  signedIn(identity: UserIdentity, profile: UserProfile): Promise<UserDocument>;
  find(userId: string): Promise<UserDocument | undefined>;
  findByIdentity(identity: UserIdentity): Promise<UserDocument | undefined>;
  /** The users a `disable-user` argument names: the one of that id, or those with that email (any letter case). */
  findByIdOrEmail(idOrEmail: string): Promise<UserDocument[]>;
  /** Marks the user disabled (kept from the first time); the user as it now is. */
  disable(userId: string, now?: Date): Promise<UserDocument | undefined>;
}

const newUserId = (): string => `usr_${randomBytes(12).toString('hex')}`;

function isDuplicateKey(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && (error as { code: unknown }).code === 11000;
}

export function userStore(db: Db): UserStore {
  const users = db.collection<UserDocument>(USERS);
  const signedIn = async (identity: UserIdentity, profile: UserProfile): Promise<UserDocument> => {
    const now = new Date();
    const user = await users.findOneAndUpdate(
      { 'identity.method': identity.method, 'identity.issuer': identity.issuer, 'identity.subject': identity.subject },
      {
        $setOnInsert: { _id: newUserId(), createdAt: now, origin: identity.method, identity },
        $set: { lastSignInAt: now, ...(profile.email ? { email: profile.email } : {}), ...(profile.name ? { name: profile.name } : {}) },
      },
      { upsert: true, returnDocument: 'after' },
    );
    if (!user) throw new Error('the user upsert answered nothing');
    return user;
  };
  return {
    async create(origin) {
      const user: UserDocument = { _id: newUserId(), createdAt: new Date(), origin };
      await users.insertOne(user);
      return user;
    },
    async signedIn(identity, profile) {
      try {
        return await signedIn(identity, profile);
      } catch (error) {
        // Two first sign-ins of one identity raced: the unique index let one insert; the other now finds it.
        if (!isDuplicateKey(error)) throw error;
        return signedIn(identity, profile);
      }
    },
    async find(userId) {
      return (await users.findOne({ _id: userId })) ?? undefined;
    },
    async findByIdentity(identity) {
      return (
        (await users.findOne({ 'identity.method': identity.method, 'identity.issuer': identity.issuer, 'identity.subject': identity.subject })) ?? undefined
      );
    },
    async findByIdOrEmail(idOrEmail) {
      if (idOrEmail.startsWith('usr_')) return users.find({ _id: idOrEmail }).toArray();
      return users.find({ email: idOrEmail.trim().toLowerCase() }).limit(10).toArray();
    },
    async disable(userId, now = new Date()) {
      await users.updateOne({ _id: userId, disabledAt: { $exists: false } }, { $set: { disabledAt: now } });
      return (await users.findOne({ _id: userId })) ?? undefined;
    },
  };
}
