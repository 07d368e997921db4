import { isDuplicateKey, onlyDuplicateKeys, type Collection, type Db } from '@ars/mongo';

/** Where a consumer group records the ids of the messages it has handled (idempotent consumption). */
export interface ProcessedMessageStore {
  /** True when `messageId` was already handled by `group`. */
  has(group: string, messageId: string): Promise<boolean>;
  /** Records `messageId` as handled by `group` (never a dead-lettered one). Recording the same id twice is not an error. */
  record(group: string, messageId: string, info: ProcessedInfo): Promise<void>;
  /** Of `messageIds`, those already handled by `group` (one lookup for a batch). */
  hasMany(group: string, messageIds: string[]): Promise<Set<string>>;
  /** Records each message as handled by `group` in one write; ids recorded already are not an error. */
  recordMany(group: string, entries: { messageId: string; info: ProcessedInfo }[]): Promise<void>;
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
        if (!isDuplicateKey(error)) throw error;
      }
    },
    async hasMany(group, messageIds) {
      if (messageIds.length === 0) return new Set();
      const found = await collection.find({ group, messageId: { $in: messageIds } }, { projection: { _id: 0, messageId: 1 } }).toArray();
      return new Set(found.map((doc) => doc.messageId));
    },
    async recordMany(group, entries) {
      if (entries.length === 0) return;
      const processedAt = new Date();
      try {
        await collection.insertMany(
          entries.map(({ messageId, info }) => ({ group, messageId, ...info, processedAt })),
          { ordered: false },
        );
      } catch (error) {
        if (!onlyDuplicateKeys(error)) throw error;
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
    hasMany: async (group, messageIds) => new Set(messageIds.filter((id) => seen.has(k(group, id)))),
    recordMany: async (group, entries) => {
      for (const { messageId } of entries) seen.add(k(group, messageId));
    },
    size: () => seen.size,
  };
}
