// One pass of the outbox relay (outbox.ts): in each collection, the documents with pending
// `_outbox` entries; each document's entries published in order, then exactly those `$pull`ed by
// id (entries pushed meanwhile stay). A failed publish ends that document's pass, keeping the
// order; the next pass retries it.
import type { Collection, Db, Document, Filter, UpdateFilter } from 'mongodb';
import { errorFields, type BusLogger } from './logger.js';
import { OUTBOX_FIELD, type OutboxEntry, type WithOutbox } from './outbox.js';
import type { OutboxPublisher } from './outboxRelay.js';

export interface OutboxPassResources {
  db: Db;
  collections: readonly string[];
  bus: OutboxPublisher;
  /** Documents read per collection per pass. */
  batchSize: number;
  logger: BusLogger;
  /** Called after a document's entries were published and before they are `$pull`ed (crash tests). */
  beforePull?: (collection: string, messageIds: string[]) => Promise<void>;
  /** Read before each document: a stopping relay starts no more. */
  stopped(): boolean;
}

type OutboxDocument = WithOutbox & Document;

const PENDING: Filter<Document> = { [`${OUTBOX_FIELD}.id`]: { $exists: true } };

/** The number of messages published. A collection that fails is logged and left to the next pass. */
export async function relayOutboxPass(resources: OutboxPassResources): Promise<number> {
  let total = 0;
  for (const name of resources.collections) {
    try {
      total += await relayCollection(resources, name);
    } catch (error) {
      resources.logger.warn({ collection: name, ...errorFields(error) }, 'outbox pass failed; will retry');
    }
  }
  if (total > 0) resources.logger.debug({ published: total }, 'outbox relayed');
  return total;
}

async function relayCollection(resources: OutboxPassResources, name: string): Promise<number> {
  const collection = resources.db.collection<OutboxDocument>(name);
  const docs = await collection.find(PENDING, { projection: { _id: 1, [OUTBOX_FIELD]: 1 }, limit: resources.batchSize }).toArray();
  let published = 0;
  for (const doc of docs) {
    if (resources.stopped()) break;
    const done = await publishInOrder(resources, name, doc);
    if (done.length === 0) continue;
    await resources.beforePull?.(name, done);
    await pullPublished(collection, doc, done);
    published += done.length;
  }
  return published;
}

/** The ids of the document's entries published, in order, up to the first that failed. */
async function publishInOrder(resources: OutboxPassResources, name: string, doc: OutboxDocument): Promise<string[]> {
  const entries: OutboxEntry[] = doc._outbox ?? [];
  const done: string[] = [];
  try {
    for (const entry of entries) {
      const { key, type, id, occurredAt, data, headers } = entry;
      await resources.bus.publish(entry.topic, { key, type, id, occurredAt, data, headers });
      done.push(entry.id);
    }
  } catch (error) {
    resources.logger.warn(
      { collection: name, docId: String(doc._id), messageId: entries[done.length]?.id, ...errorFields(error) },
      'outbox publish failed; will retry',
    );
  }
  return done;
}

async function pullPublished(collection: Collection<OutboxDocument>, doc: OutboxDocument, ids: string[]): Promise<void> {
  const pull = { $pull: { [OUTBOX_FIELD]: { id: { $in: ids } } } } as unknown as UpdateFilter<OutboxDocument>;
  await collection.updateOne({ _id: doc._id }, pull);
}
