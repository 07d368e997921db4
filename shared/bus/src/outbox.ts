import { randomUUID } from 'node:crypto';
import { ROOT_CONTEXT, context } from '@opentelemetry/api';
import type { Db, Document, Filter, UpdateFilter } from 'mongodb';
import { buildEnvelope, type OutgoingMessage } from './envelope.js';
import { errorFields, silentLogger, type BusLogger } from './logger.js';
import type { TopicName } from './topics.js';
import { traceHeaders } from './tracing.js';

/**
 * Transactional outbox without multi-document transactions: the messages a state change causes
 * are written into the changed document itself (field `_outbox`), in the same single-document
 * write, so the change and its messages cannot part. A relay publishes them and `$pull`s them.
 */
export const OUTBOX_FIELD = '_outbox';

/** A message that leaves with a state change. */
export interface OutboxMessage<D = unknown> extends OutgoingMessage<D> {
  topic: TopicName;
}

/** One pending message as stored in a document's `_outbox` array (a validated envelope). */
export interface OutboxEntry {
  id: string;
  topic: TopicName;
  key: string;
  type: string;
  occurredAt: string;
  data: unknown;
  /** Headers to send, including the `traceparent` active when the state change was written. */
  headers: Record<string, string>;
}

/** Documents that may carry pending messages. */
export interface WithOutbox {
  _outbox?: OutboxEntry[];
}

/**
 * Validates messages against the topic catalog now (an invalid message throws before the state
 * change is written) and returns their outbox entries, in order. Ids are fixed here: a relay that
 * republishes after a crash sends the same id again, which the consumers' idempotency absorbs.
 */
export function outboxEntries(messages: OutboxMessage[]): OutboxEntry[] {
  const trace = traceHeaders();
  return messages.map((message) => {
    const envelope = buildEnvelope(message.topic, { ...message, id: message.id ?? randomUUID() });
    return {
      id: envelope.id,
      topic: message.topic,
      key: message.key,
      type: envelope.type,
      occurredAt: envelope.occurredAt,
      data: envelope.data,
      headers: { ...trace, ...message.headers },
    };
  });
}

/** A new document carrying its first messages: `collection.insertOne(outboxInsert(doc, [msg]))`. */
export function outboxInsert<T extends Document>(doc: T, messages: OutboxMessage[]): T & { _outbox: OutboxEntry[] } {
  return { ...doc, [OUTBOX_FIELD]: outboxEntries(messages) } as T & { _outbox: OutboxEntry[] };
}

/**
 * The update fragment appending messages: `updateOne(filter, {$set: {...}, ...outboxPush([msg])})`.
 * When the update already has a `$push`, use `withOutbox(update, messages)`.
 */
export function outboxPush(messages: OutboxMessage[]): { $push: { _outbox: { $each: OutboxEntry[] } } } {
  return { $push: { _outbox: { $each: outboxEntries(messages) } } };
}

/** `update` plus the `$push` of the messages (merged into an existing `$push`). */
export function withOutbox<T extends Document>(update: UpdateFilter<T>, messages: OutboxMessage[]): UpdateFilter<T> {
  const push: Record<string, unknown> = { ...((update as { $push?: Record<string, unknown> }).$push ?? {}) };
  if (OUTBOX_FIELD in push) throw new Error(`withOutbox: the update already pushes to ${OUTBOX_FIELD}`);
  push[OUTBOX_FIELD] = { $each: outboxEntries(messages) };
  return { ...update, $push: push } as UpdateFilter<T>;
}

/** What the relay needs of the bus. */
export interface OutboxPublisher {
  publish(topic: TopicName, message: OutgoingMessage): Promise<unknown>;
}

export interface OutboxRelayOptions {
  db: Db;
  /** Collections whose documents may carry `_outbox` entries. */
  collections: string[];
  bus: OutboxPublisher;
  /** Pause between passes when idle; default 1000 ms. `kick()` starts a pass at once. */
  pollIntervalMs?: number;
  /** Documents read per collection per pass; default 100. */
  batchSize?: number;
  logger?: BusLogger;
  /** Create the sparse index on `_outbox.id` in each collection at start; default true. */
  createIndexes?: boolean;
  /** Called after a document's entries were published and before they are `$pull`ed (crash tests). */
  beforePull?: (collection: string, messageIds: string[]) => Promise<void>;
}

export interface OutboxRelay {
  /** Runs a pass as soon as possible (call after a local write). Passes never overlap. */
  kick(): void;
  /** Runs one pass now (after a running one); resolves with the number of messages published. */
  runOnce(): Promise<number>;
  /** Stops polling and waits for the running pass. */
  stop(): Promise<void>;
}

/**
 * Starts the relay: it finds documents with pending `_outbox` entries, publishes each document's
 * entries in order, then `$pull`s exactly the published ones by id (entries pushed meanwhile stay).
 * A failed publish stops that document's pass (order) and is retried on the next pass.
 */
export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { db, bus } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const batchSize = options.batchSize ?? 100;
  const logger = (options.logger ?? silentLogger).child({ component: 'outbox-relay' });
  const pendingFilter: Filter<Document> = { [`${OUTBOX_FIELD}.id`]: { $exists: true } };

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<number> | undefined;
  let kicked = false;

  const indexes =
    (options.createIndexes ?? true)
      ? Promise.all(
          options.collections.map((name) => db.collection(name).createIndex({ [`${OUTBOX_FIELD}.id`]: 1 }, { sparse: true, name: 'outbox_pending' })),
        ).then(
          () => undefined,
          (error: unknown) => logger.warn({ ...errorFields(error) }, 'could not create the outbox index; polling still works'),
        )
      : Promise.resolve();

  const relayCollection = async (name: string): Promise<number> => {
    const collection = db.collection<WithOutbox & Document>(name);
    const docs = await collection.find(pendingFilter, { projection: { _id: 1, [OUTBOX_FIELD]: 1 }, limit: batchSize }).toArray();
    let published = 0;
    for (const doc of docs) {
      if (stopped) break;
      const entries = doc._outbox ?? [];
      const done: string[] = [];
      try {
        for (const entry of entries) {
          await bus.publish(entry.topic, {
            key: entry.key,
            type: entry.type,
            id: entry.id,
            occurredAt: entry.occurredAt,
            data: entry.data,
            headers: entry.headers,
          });
          done.push(entry.id);
        }
      } catch (error) {
        logger.warn(
          { collection: name, docId: String(doc._id), messageId: entries[done.length]?.id, ...errorFields(error) },
          'outbox publish failed; will retry',
        );
      } finally {
        if (done.length > 0) {
          await options.beforePull?.(name, done);
          const pull = { $pull: { [OUTBOX_FIELD]: { id: { $in: done } } } } as unknown as UpdateFilter<WithOutbox & Document>;
          await collection.updateOne({ _id: doc._id }, pull);
          published += done.length;
        }
      }
    }
    return published;
  };

  const pass = async (): Promise<number> => {
    await indexes;
    let total = 0;
    for (const name of options.collections) {
      try {
        total += await relayCollection(name);
      } catch (error) {
        logger.warn({ collection: name, ...errorFields(error) }, 'outbox pass failed; will retry');
      }
    }
    if (total > 0) logger.debug({ published: total }, 'outbox relayed');
    return total;
  };

  const runOnce = async (): Promise<number> => {
    while (current) await current.catch(() => undefined);
    const run = pass().finally(() => {
      current = undefined;
    });
    current = run;
    return run;
  };

  const schedule = (delay: number): void => {
    if (stopped) return;
    clearTimeout(timer);
    // Outside any trace: a kick comes from a request's or a message's handler, and the timer would
    // otherwise carry that trace into every later pass. Each entry is sent in its own trace (its headers).
    timer = setTimeout(() => context.with(ROOT_CONTEXT, () => void loop()), delay);
  };

  /** One pass, then the next one: at once when kicked meanwhile or the batch was full, else after the poll interval. */
  const loop = async (): Promise<void> => {
    if (stopped) return;
    kicked = false;
    let published = 0;
    try {
      published = await runOnce();
    } catch (error) {
      logger.warn({ ...errorFields(error) }, 'outbox pass failed');
    }
    schedule(kicked || published >= batchSize ? 0 : pollIntervalMs);
  };

  schedule(0);
  return {
    kick: () => {
      kicked = true;
      schedule(0);
    },
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      while (current) await current.catch(() => undefined);
    },
  };
}
