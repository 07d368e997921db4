import type { Collection, Db } from 'mongodb';

/** Where a consumer group records the ids of the messages it has handled (idempotent consumption). */
export interface ProcessedMessageStore {
  /** True when `messageId` was already handled by `group`. */
  has(group: string, messageId: string): Promise<boolean>;
  /** Records `messageId` as handled by `group` (never a dead-lettered one). Recording the same id twice is not an error. */
  record(group: string, messageId: string, info: ProcessedInfo): Promise<void>;
}

export interface ProcessedInfo {
  topic: string;
  partition: number;
  offset: string;
  /**
   * Always `handled`: a message sent to the dead-letter topic is not recorded, so that a re-drive
   * of it (the same id on the original topic) is handled by the group.
   */
  outcome: 'handled';
}

/** One document per (group, message id). */
export interface ProcessedMessageDocument extends ProcessedInfo {
  group: string;
  messageId: string;
  processedAt: Date;
}

export interface MongoProcessedStoreOptions {
  /** Collection name; default `bus_processed_messages`. */
  collection?: string;
  /**
   * How long ids are kept (a TTL index on `processedAt`); default 7 days. Redelivery after that
   * long is not expected (offsets are committed right after handling). `null`: kept forever.
   */
  retentionSeconds?: number | null;
}

export interface MongoProcessedMessageStore extends ProcessedMessageStore {
  readonly collection: Collection<ProcessedMessageDocument>;
  /** Creates the unique index on `{group, messageId}` (and the TTL index). Call at start-up. */
  ensureIndexes(): Promise<void>;
}

const DUPLICATE_KEY = 11000;

/** The MongoDB implementation (official driver): a unique index on `{group, messageId}`. */
export function mongoProcessedStore(db: Db, options: MongoProcessedStoreOptions = {}): MongoProcessedMessageStore {
  const collection = db.collection<ProcessedMessageDocument>(options.collection ?? 'bus_processed_messages');
  const retention = options.retentionSeconds === undefined ? 7 * 24 * 3600 : options.retentionSeconds;
  return {
    collection,
    async ensureIndexes() {
      await collection.createIndex({ group: 1, messageId: 1 }, { unique: true, name: 'group_messageId_unique' });
      if (retention !== null) await collection.createIndex({ processedAt: 1 }, { expireAfterSeconds: retention, name: 'processedAt_ttl' });
    },
    async has(group, messageId) {
      const found = await collection.findOne({ group, messageId }, { projection: { _id: 1 } });
      return found !== null;
    },
    async record(group, messageId, info) {
      try {
        await collection.insertOne({ group, messageId, ...info, processedAt: new Date() });
      } catch (error) {
        if ((error as { code?: unknown }).code !== DUPLICATE_KEY) throw error;
      }
    },
  };
}

/** An in-process store (tests, tools): forgets everything when the process exits. */
export function memoryProcessedStore(): ProcessedMessageStore & { size(): number } {
  const seen = new Set<string>();
  const k = (group: string, id: string) => `${group}\u0000${id}`;
  return {
    has: async (group, messageId) => seen.has(k(group, messageId)),
    record: async (group, messageId) => {
      seen.add(k(group, messageId));
    },
    size: () => seen.size,
  };
}
