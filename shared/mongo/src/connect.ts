import { MongoClient, type Db, type IndexDescription } from 'mongodb';
import type { Logger } from '@ars/logger';

export interface MongoOptions {
  url: string;
  dbName: string;
  logger: Logger;
  /** Shown in the server's logs and `currentOp` (the service name). */
  appName: string;
  /** How long an operation waits for a usable server; short so readiness reports quickly. Default 2000 ms. */
  serverSelectionTimeoutMS?: number;
  /** Default 3000 ms. */
  connectTimeoutMS?: number;
  /** Default 20. */
  maxPoolSize?: number;
}

export interface Mongo {
  client: MongoClient;
  db: Db;
  /** Resolves when the server answers `ping`; rejects otherwise (readiness check). */
  ping(): Promise<void>;
  /** Closes the pool (in-flight operations finish first). Safe to call twice. */
  close(): Promise<void>;
}

/** The URL without credentials, for logs and error messages. */
export function redactMongoUrl(url: string): string {
  return url.replace(/^(mongodb(?:\+srv)?:\/\/)[^@/]*@/, '$1***@');
}

/**
 * Connects the official driver with a bounded pool and short timeouts. Rejects when no server is
 * reachable within `serverSelectionTimeoutMS` (the error names the redacted URL).
 */
export async function connectMongo(options: MongoOptions): Promise<Mongo> {
  const client = new MongoClient(options.url, {
    appName: options.appName,
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 2_000,
    connectTimeoutMS: options.connectTimeoutMS ?? 3_000,
    maxPoolSize: options.maxPoolSize ?? 20,
    minPoolSize: 0,
    maxIdleTimeMS: 60_000,
  });
  const where = redactMongoUrl(options.url);
  try {
    await client.connect();
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new Error(`MongoDB unreachable at ${where}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const db = client.db(options.dbName);
  options.logger.info({ mongo: where, db: options.dbName }, 'mongo connected');
  let closing: Promise<void> | undefined;
  return {
    client,
    db,
    ping: async () => {
      await db.command({ ping: 1 });
    },
    close: () => {
      closing ??= client.close().then(() => options.logger.info('mongo closed'));
      return closing;
    },
  };
}

export interface CollectionIndexes {
  collection: string;
  indexes: IndexDescription[];
}

/**
 * Creates each collection's indexes (run at start-up; idempotent: existing identical indexes are
 * left alone). An index whose name exists with other options fails loudly, naming it.
 */
export async function ensureIndexes(db: Db, specs: readonly CollectionIndexes[], logger?: Logger): Promise<void> {
  for (const spec of specs) {
    if (spec.indexes.length === 0) continue;
    try {
      const names = await db.collection(spec.collection).createIndexes(spec.indexes);
      logger?.debug({ collection: spec.collection, indexes: names }, 'indexes ensured');
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`Could not create indexes on ${db.databaseName}.${spec.collection}: ${message}`, { cause: error });
    }
  }
  logger?.info({ collections: specs.map((s) => s.collection) }, 'indexes ensured');
}
