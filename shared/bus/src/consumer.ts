import type { Kafka } from 'kafkajs';
import type { BatchResources } from './consumerBatch.js';
import { ConsumerRunner } from './consumerRunner.js';
import type { BatchHandler, MessageHandler } from './handlers.js';
import type { BusLogger } from './logger.js';
import { consumerMetrics } from './metrics.js';
import { handlePartitionBatch } from './partitionBatch.js';
import type { ProcessedMessageStore } from './processed.js';
import { RecordHandler, type DeadLetterPublisher } from './recordHandler.js';
import { RecordProgressBook } from './recordProgress.js';
import { StopSignal } from './stopSignal.js';
import { topicSpec, type BaseTopicName, type DeadLetterTopicName } from './topics.js';

export type { DeadLetterPublisher } from './recordHandler.js';

export interface ConsumeOptions {
  groupId: string;
  /** Catalog topics (or `bus.test.<suffix>`); dead-letter topics may be consumed too. */
  topics: (BaseTopicName | DeadLetterTopicName)[];
  /**
   * Handles one message. Must be idempotent itself: it is re-run when the process dies after the
   * handler's effect but before the message id is recorded (see README, "Idempotency").
   */
  handle: MessageHandler;
  /**
   * Handles two or more consecutive messages of a partition at once, when a fetch brought them
   * (first deliveries that decode, at most `maxBatchSize`): one call instead of one per message, one
   * lookup and one record of processed ids. Idempotent like `handle`. When it fails on an
   * infrastructure error the partition is held, as for `handle`; on any other error each of its
   * messages is handled alone by `handle`, so retries and dead-lettering stay per message.
   */
  handleBatch?: BatchHandler;
  /** Most messages one `handleBatch` call gets; default 500. */
  maxBatchSize?: number;
  /**
   * Failures of the message's own (not infrastructure errors, see isInfrastructureError) before it
   * goes to the dead-letter topic; default 5.
   */
  maxAttempts?: number;
  /** Exponential backoff between those attempts (doubling from `initial`, capped at `max`); default {initial: 200, max: 5000}. */
  backoffMs?: { initial: number; max: number };
  /**
   * Backoff while the infrastructure is away (MongoDB, Kafka, a peer service): retried for as long
   * as it lasts, holding the partition, never dead-lettered; default {initial: 250, max: 10000}.
   */
  infrastructureBackoffMs?: { initial: number; max: number };
  /** At most one warning per this many ms per held message while it waits on the infrastructure; default 30000. */
  retryLogIntervalMs?: number;
  /** Skips messages already handled by this group; without one every delivery is handled. */
  processed?: ProcessedMessageStore;
  /**
   * Topics whose handlers are idempotent by their own writes (a unique index refuses a redelivered
   * message's effect, and the rest of it changes nothing twice): their messages are neither looked up
   * in nor recorded to `processed`, two MongoDB round trips a batch fewer.
   */
  idempotentTopics?: readonly string[];
  /** A new group starts at the oldest message (default true), or only sees messages produced after it joined. */
  fromBeginning?: boolean;
  /** Partitions handled at the same time (one message at a time within a partition); default 8. */
  partitionsConsumedConcurrently?: number;
  /** Commit offsets after every n handled messages of a partition (and when stopping); default 1. */
  commitEveryMessages?: number;
  /**
   * Longest a fetch waits for data (default: the bus' `fetchMaxWaitMs`, else 250). A broker (and
   * the local Kafka mock, `@ars/kafka-mock`) answers as soon as a fetched partition gets data, so
   * this bounds how often an idle consumer asks, and how long stopping it waits, not the latency.
   */
  fetchMaxWaitMs?: number;
  /** Group membership timings (kafkajs defaults: 30000 / 60000 / 3000). Tests use small values. */
  session?: { sessionTimeoutMs?: number; rebalanceTimeoutMs?: number; heartbeatIntervalMs?: number };
}

/** A running consumer group member. */
export interface BusConsumer {
  readonly groupId: string;
  /** Resolves once this member has joined the group and received its assignment (the first time). */
  joined(): Promise<void>;
  /** The partitions currently assigned to this member, by topic. */
  assignment(): Record<string, number[]>;
  /** False once kafkajs crashed without restarting, or after stop. */
  isRunning(): boolean;
  /** Stops fetching, waits for in-flight handlers, commits handled offsets, leaves the group, disconnects. */
  stop(): Promise<void>;
}

/**
 * Starts a consumer group member; resolves once it has joined the group and runs. The parts:
 * `ConsumerRunner` (the kafkajs consumer's life), `handlePartitionBatch` (a fetched batch of one
 * partition, offsets and holds), `RecordHandler` (one record: decode, dedupe, retries, dead letters),
 * `handleRecordBatch` (records together), `failureVerdict` (the retry rule), `RecordProgressBook`.
 */
export async function startConsumer(
  kafka: Kafka,
  publishDeadLetter: DeadLetterPublisher,
  options: ConsumeOptions,
  baseLogger: BusLogger,
): Promise<BusConsumer> {
  const { groupId } = options;
  if (!groupId) throw new Error('consume: groupId is required');
  if (options.topics.length === 0) throw new Error('consume: at least one topic is required');
  for (const topic of options.topics) {
    if (!topicSpec(topic)) throw new Error(`consume: unknown topic ${topic} (not in the topic catalog)`);
  }
  const logger = baseLogger.child({ component: 'bus-consumer', groupId });
  const metrics = consumerMetrics();
  const stop = new StopSignal();
  const progress = new RecordProgressBook(logger, options.retryLogIntervalMs ?? 30_000);
  const idempotent = new Set(options.idempotentTopics ?? []);
  const processedOf = (topic: string): ProcessedMessageStore | undefined => (idempotent.has(topic) ? undefined : options.processed);
  const records = new RecordHandler({
    groupId,
    handle: options.handle,
    processedOf,
    maxAttempts: Math.max(1, options.maxAttempts ?? 5),
    backoff: options.backoffMs ?? { initial: 200, max: 5_000 },
    infrastructureBackoff: options.infrastructureBackoffMs ?? { initial: 250, max: 10_000 },
    publishDeadLetter,
    logger,
    metrics,
    progress,
    stop,
  });
  const batches: BatchResources | undefined = options.handleBatch && {
    groupId,
    handleBatch: options.handleBatch,
    processedOf,
    logger,
    handlerDuration: metrics.handlerDuration,
    progress,
    holds: records,
  };
  const resumeTimers = new Set<NodeJS.Timeout>();
  const partitionBatch = {
    groupId,
    logger,
    metrics,
    progress,
    records,
    batches,
    maxBatchSize: Math.max(2, options.maxBatchSize ?? 500),
    commitEvery: Math.max(1, options.commitEveryMessages ?? 1),
    stop,
    resumeTimers,
  };
  const runner = new ConsumerRunner(
    kafka,
    {
      groupId,
      topics: options.topics,
      fromBeginning: options.fromBeginning ?? true,
      partitionsConsumedConcurrently: Math.max(1, options.partitionsConsumedConcurrently ?? 8),
      fetchMaxWaitMs: options.fetchMaxWaitMs ?? 250,
      session: options.session ?? {},
    },
    (payload) => handlePartitionBatch(partitionBatch, payload),
    logger,
    stop,
  );
  await runner.launch();
  logger.info({ topics: options.topics }, 'consumer running');

  let stopped: Promise<void> | undefined;
  return {
    groupId,
    joined: () => runner.joined,
    assignment: () => runner.assignment,
    isRunning: () => runner.isRunning,
    stop(): Promise<void> {
      stopped ??= (async () => {
        logger.info('consumer stopping: in-flight handlers finish first');
        stop.stop();
        for (const timer of resumeTimers) clearTimeout(timer);
        resumeTimers.clear();
        try {
          await runner.shutdown();
        } finally {
          logger.info('consumer stopped');
        }
      })();
      return stopped;
    },
  };
}
