// The outbox relay (outbox.ts says what the outbox is): it publishes what state changes left in
// their documents' `_outbox`. One pass is outboxPass.ts, when passes run passScheduler.ts.
import type { Db } from 'mongodb';
import type { OutgoingMessage } from './envelope.js';
import { errorFields, silentLogger, type BusLogger } from './logger.js';
import { OUTBOX_FIELD } from './outbox.js';
import { relayOutboxPass, type OutboxPassResources } from './outboxPass.js';
import { PassScheduler } from './passScheduler.js';
import type { TopicName } from './topics.js';

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
  const batchSize = options.batchSize ?? 100;
  const logger = (options.logger ?? silentLogger).child({ component: 'outbox-relay' });
  const indexes = options.createIndexes === false ? Promise.resolve() : ensureOutboxIndexes(options.db, options.collections, logger);
  const resources: OutboxPassResources = {
    db: options.db,
    collections: options.collections,
    bus: options.bus,
    batchSize,
    logger,
    ...(options.beforePull ? { beforePull: options.beforePull } : {}),
    stopped: () => scheduler.stopped,
  };
  const scheduler = new PassScheduler(
    async () => {
      await indexes;
      return relayOutboxPass(resources);
    },
    { pollIntervalMs: options.pollIntervalMs ?? 1_000, batchSize, logger },
  );
  scheduler.start();
  return { kick: () => scheduler.kick(), runOnce: () => scheduler.runOnce(), stop: () => scheduler.stop() };
}

/** The sparse index the relay finds pending documents by; without it, polling still works (a warning). */
async function ensureOutboxIndexes(db: Db, collections: readonly string[], logger: BusLogger): Promise<void> {
  try {
    await Promise.all(collections.map((name) => db.collection(name).createIndex({ [`${OUTBOX_FIELD}.id`]: 1 }, { sparse: true, name: 'outbox_pending' })));
  } catch (error) {
    logger.warn({ ...errorFields(error) }, 'could not create the outbox index; polling still works');
  }
}
