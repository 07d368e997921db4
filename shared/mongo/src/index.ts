export { connectMongo, ensureIndexes, redactMongoUrl } from './connect.js';
export { DUPLICATE_KEY, isDuplicateKey, onlyDuplicateKeys } from './errors.js';
export type { Mongo, MongoOptions, CollectionIndexes } from './connect.js';
export type { Db, Collection, Filter, IndexDescription, MongoClient } from 'mongodb';
