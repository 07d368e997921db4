import { randomBytes } from 'node:crypto';
import type { CollectionIndexes, Db } from '@ars/mongo';

export interface UserDocument {
  _id: string;
  createdAt: Date;
  /** How the account came to be: `dev` for the development account command. */
  origin: 'dev';
}

export const USERS = 'users';
export const userIndexes: CollectionIndexes = { collection: USERS, indexes: [{ key: { createdAt: 1 }, name: 'created' }] };

export interface UserStore {
  create(origin: UserDocument['origin']): Promise<UserDocument>;
}

export function userStore(db: Db): UserStore {
  const users = db.collection<UserDocument>(USERS);
  return {
    async create(origin) {
      const user: UserDocument = { _id: `usr_${randomBytes(12).toString('hex')}`, createdAt: new Date(), origin };
      await users.insertOne(user);
      return user;
    },
  };
}
