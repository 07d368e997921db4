import { randomUUID } from 'node:crypto';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import { batchableRecords, handleRecordBatch, type BatchResources } from './consumerBatch.js';
import { decodeMessage, type BusMessage, type OutgoingMessage } from './envelope.js';
import type { BatchHandler, MessageContext, MessageHandler } from './handlers.js';
import { headersOf, keyOf } from './kafkaRecord.js';
import { errorFields, type BusLogger } from './logger.js';
import { isInfrastructureError, isNonRetryable } from './infrastructureErrors.js';
import { consumerMetrics, type MessageOutcome } from './metrics.js';
import type { ProcessedMessageStore } from './processed.js';
import { RecordProgressBook, type RecordProgress } from './recordProgress.js';
import { DEAD_LETTER_TYPE, DLQ_SUFFIX, deadLetterTopic, topicSpec, type BaseTopicName, type DeadLetterTopicName } from './topics.js';
import { withConsumerSpan } from './tracing.js';

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
  /** A new group starts at the oldest message (default true), or only sees messages produced after it joined. */
  fromBeginning?: boolean;
  /** Partitions handled at the same time (one message at a time within a partition); default 8. */
  partitionsConsumedConcurrently?: number;
  /** Commit offsets after every n handled messages of a partition (and when stopping); default 1. */
  commitEveryMessages?: number;
  /**
   * Longest a fetch waits for data (default: the bus' `fetchMaxWaitMs`, else 250). A real broker
   * answers as soon as data arrives; librdkafka's mock waits the whole time, so against the mock
   * this is the worst-case delivery latency (100 in tests).
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

/** Publishes to a dead-letter topic (the bus' producer). */
export type DeadLetterPublisher = (topic: DeadLetterTopicName, message: OutgoingMessage) => Promise<unknown>;

class Stopping extends Error {}

/**
 * Thrown out of a record's handling when the infrastructure is away: the batch stops there
 * (the record stays unresolved, uncommitted), its partition is paused for `delayMs`, then resumed,
 * and kafkajs fetches the record again. Other partitions keep flowing meanwhile.
 */
class HoldPartition extends Error {
  constructor(readonly delayMs: number) {
    super('waiting on the infrastructure');
  }
}

/** Starts a consumer group member; resolves once it has joined the group and runs. */
export async function startConsumer(
  kafka: Kafka,
  publishDeadLetter: DeadLetterPublisher,
  options: ConsumeOptions,
  baseLogger: BusLogger,
): Promise<BusConsumer> {
  const { groupId, handle } = options;
  if (!groupId) throw new Error('consume: groupId is required');
  if (options.topics.length === 0) throw new Error('consume: at least one topic is required');
  for (const topic of options.topics) {
    if (!topicSpec(topic)) throw new Error(`consume: unknown topic ${topic} (not in the topic catalog)`);
  }
  const maxAttempts = Math.max(1, options.maxAttempts ?? 5);
  const backoff = options.backoffMs ?? { initial: 200, max: 5_000 };
  const infraBackoff = options.infrastructureBackoffMs ?? { initial: 250, max: 10_000 };
  const retryLogIntervalMs = options.retryLogIntervalMs ?? 30_000;
  const commitEvery = Math.max(1, options.commitEveryMessages ?? 1);
  const logger = baseLogger.child({ component: 'bus-consumer', groupId });
  const session = options.session ?? {};
  const metrics = consumerMetrics();

  let stopping = false;
  let running = false;
  const wakeups = new Set<() => void>();
  let assignment: Record<string, number[]> = {};
  let resolveJoined!: () => void;
  const joinedPromise = new Promise<void>((resolve) => (resolveJoined = resolve));

  /** The kafkajs consumer of the moment: replaced when one crashes for good (see relaunch). */
  let consumer: Consumer | undefined;
  let launching: Promise<void> | undefined;
  let relaunchTimer: NodeJS.Timeout | undefined;
  let relaunches = 0;

  const create = (): { consumer: Consumer; crashed: () => boolean } => {
    let crashed = false;
    const created = kafka.consumer({
      groupId,
      sessionTimeout: session.sessionTimeoutMs ?? 30_000,
      rebalanceTimeout: session.rebalanceTimeoutMs ?? 60_000,
      heartbeatInterval: session.heartbeatIntervalMs ?? 3_000,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: options.fetchMaxWaitMs ?? 250,
      retry: { retries: 10, initialRetryTime: 300, maxRetryTime: 10_000 },
    });
    created.on(created.events.GROUP_JOIN, (event) => {
      assignment = { ...event.payload.memberAssignment };
      relaunches = 0;
      logger.info({ assignment, leader: event.payload.isLeader }, 'joined consumer group');
      resolveJoined();
    });
    created.on(created.events.CRASH, (event) => {
      logger.error({ ...errorFields(event.payload.error), restart: event.payload.restart }, 'consumer crashed');
      if (event.payload.restart) return; // kafkajs restarts it (retriable errors)
      crashed = true;
      running = false;
      relaunch();
    });
    return { consumer: created, crashed: () => crashed };
  };

  const launch = async (): Promise<void> => {
    const { consumer: next, crashed } = create();
    consumer = next;
    await next.connect();
    await next.subscribe({ topics: options.topics, fromBeginning: options.fromBeginning ?? true });
    await next.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: Math.max(1, options.partitionsConsumedConcurrently ?? 8),
      eachBatch,
    });
    if (!crashed()) running = true;
  };

  /**
   * kafkajs gives up on errors it deems fatal (e.g. INVALID_REQUEST, which librdkafka's mock answers
   * to a SyncGroup racing a rebalance): a member that stayed down would hold its partitions'
   * messages back forever. So a new kafkajs consumer joins in its place, with backoff.
   */
  const relaunch = (): void => {
    if (stopping || relaunchTimer) return;
    const delay = Math.min(30_000, 500 * 2 ** relaunches++);
    logger.warn({ delayMs: delay }, 'consumer stopped on an error: a new one joins the group');
    relaunchTimer = setTimeout(() => {
      relaunchTimer = undefined;
      if (stopping) return;
      const old = consumer;
      launching = (async () => {
        await old?.disconnect().catch(() => undefined);
        if (!stopping) await launch();
      })().catch((error: unknown) => {
        logger.error({ ...errorFields(error) }, 'consumer restart failed');
        running = false;
        relaunch();
      });
    }, delay);
  };

  /** Sleeps `ms`, waking early when stop() is called; throws Stopping when stopping. */
  const pause = async (ms: number): Promise<void> => {
    if (stopping) throw new Stopping();
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        wakeups.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      wakeups.add(wake);
    });
    if (stopping) throw new Stopping();
  };
  const delayFor = (attempt: number, curve: { initial: number; max: number } = backoff) =>
    Math.min(curve.max, curve.initial * 2 ** Math.min(30, Math.max(0, attempt - 1)));

  /** Each record's progress while it is held. */
  const progress = new RecordProgressBook(logger, retryLogIntervalMs);

  /** One infrastructure failure of a record: logged at a bounded rate, then the partition is held. */
  const hold = (state: RecordProgress, fields: Record<string, unknown> & { topic: string }, error: unknown, message: string): never => {
    state.infraRetries++;
    metrics.retries.inc({ topic: fields.topic, consumer_group: groupId, reason: 'infrastructure' });
    state.warnings.warn({ ...fields, infrastructureRetries: state.infraRetries, ...errorFields(error) }, message);
    throw new HoldPartition(delayFor(state.infraRetries, infraBackoff));
  };

  /** A MongoDB or Kafka call of the runner itself (processed store, dead-letter publish): any failure holds the partition. */
  const infrastructureStep = async <T>(
    what: string,
    state: RecordProgress,
    fields: Record<string, unknown> & { topic: string },
    fn: () => Promise<T>,
  ): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      return hold(state, fields, error, `${what} failed: holding the partition and retrying until it works`);
    }
  };

  const deadLetter = async (
    topic: BaseTopicName,
    partition: number,
    message: KafkaMessage,
    error: { message: string; name?: string; code?: string; kind: 'handler' | 'malformed'; attempts: number },
  ) => {
    const value = message.value;
    const utf8 = value === null ? null : value.toString('utf8');
    const lossless = utf8 !== null && value !== null && Buffer.from(utf8, 'utf8').equals(value);
    const data = {
      topic,
      partition,
      offset: message.offset,
      key: keyOf(message),
      value: value === null ? null : lossless ? utf8 : value.toString('base64'),
      valueEncoding: lossless || value === null ? 'utf8' : 'base64',
      headers: headersOf(message.headers),
      error: { ...error, failedAt: new Date().toISOString(), consumerGroup: groupId },
    };
    await publishDeadLetter(deadLetterTopic(topic), {
      key: data.key ?? `${topic}:${partition}:${message.offset}`,
      type: DEAD_LETTER_TYPE,
      id: randomUUID(),
      data,
    });
  };

  /**
   * Handles one record; resolves with what became of it when it may be committed; throws Stopping
   * when it must not be (the consumer stops), HoldPartition while the infrastructure is away.
   */
  const processRecord = async (topic: string, partition: number, record: KafkaMessage, heartbeat: () => Promise<void>): Promise<MessageOutcome> => {
    const key = keyOf(record);
    const headers = headersOf(record.headers);
    const base = topic as BaseTopicName;
    const info = { topic, partition, offset: record.offset };
    const state = progress.of(topic, partition, record.offset);
    const decoded = decodeMessage(topic, key, record.value);
    if (!decoded.ok) {
      if (topic.endsWith(DLQ_SUFFIX)) {
        logger.error({ ...info, reason: decoded.reason }, 'malformed message on a dead-letter topic: skipped (no dead-letter topic of a dead-letter topic)');
        return 'dropped';
      }
      if (state.attempt === 0) logger.error({ ...info, reason: decoded.reason }, 'malformed message: sending it to the dead-letter topic');
      state.attempt = 1;
      await infrastructureStep('dead-letter publish', state, info, () =>
        deadLetter(base, partition, record, { message: decoded.reason, kind: 'malformed', attempts: 0 }),
      );
      return 'dead_lettered';
    }
    const message = decoded.message;
    const messageFields = { ...info, messageId: message.id, type: message.type };
    const started = state.handled || state.poison !== undefined;
    if (
      options.processed &&
      !started &&
      (await infrastructureStep('processed-message lookup', state, messageFields, () => options.processed!.has(groupId, message.id)))
    ) {
      logger.info(messageFields, 'message already processed: skipped');
      return 'duplicate';
    }
    if (!started) {
      state.poison = await handleUntilSettled(topic, partition, record, message, key, headers, state, heartbeat);
      state.handled = state.poison === undefined;
    }
    if (state.poison) {
      // Poison: to the dead-letter topic, and NOT recorded as processed, so that a re-drive of it
      // (the same message id on the original topic) is handled by this group.
      const { error, attempts } = state.poison;
      const err = error instanceof Error ? error : new Error(String(error));
      const code = (error as { code?: unknown }).code;
      logger.error({ ...messageFields, attempts }, 'handler failed after its attempts: sending the message to the dead-letter topic');
      await infrastructureStep('dead-letter publish', state, messageFields, () =>
        deadLetter(base, partition, record, { message: err.message, name: err.name, ...(typeof code === 'string' ? { code } : {}), kind: 'handler', attempts }),
      );
      return 'dead_lettered';
    }
    if (options.processed) {
      await infrastructureStep('processed-message record', state, messageFields, () =>
        options.processed!.record(groupId, message.id, { ...info, outcome: 'handled' }),
      );
    }
    return 'handled';
  };

  /**
   * Runs the handler until it succeeds (resolves undefined) or the message proves poison (resolves
   * its last error): a NonRetryableError, or `maxAttempts` failures that are not infrastructure
   * errors (retried here, at `backoffMs`). An infrastructure error holds the partition instead
   * (HoldPartition) and never counts: an outage of MongoDB or Kafka dead-letters nothing.
   */
  const handleUntilSettled = async (
    topic: string,
    partition: number,
    record: KafkaMessage,
    message: BusMessage,
    key: string | null,
    headers: Record<string, string>,
    state: RecordProgress,
    heartbeat: () => Promise<void>,
  ): Promise<{ error: unknown; attempts: number } | undefined> => {
    // A dead-letter topic has no dead-letter topic: its handler is retried (at the longest backoff)
    // until it succeeds, holding that partition, with an error logged each time.
    const onDeadLetterTopic = topic.endsWith(DLQ_SUFFIX);
    const fields = { topic, partition, offset: record.offset, messageId: message.id, type: message.type, maxAttempts };
    for (;;) {
      const attempt = ++state.attempt;
      const context: MessageContext = { topic, partition, offset: record.offset, key, headers, attempt, groupId };
      const beat = setInterval(() => void heartbeat().catch(() => undefined), 1_000);
      const timed = metrics.handlerDuration.startTimer({ topic, consumer_group: groupId });
      let error: unknown;
      try {
        await withConsumerSpan(
          topic,
          headers,
          { 'messaging.kafka.partition': partition, 'messaging.message.id': message.id, 'messaging.consumer.group.name': groupId },
          () => handle(message, context),
        );
        state.warnings.recovered({ ...fields, attempt, infrastructureRetries: state.infraRetries }, 'handler succeeded: the infrastructure is back');
        return undefined;
      } catch (caught) {
        error = caught;
      } finally {
        clearInterval(beat);
        timed();
      }
      if (isInfrastructureError(error))
        hold(state, { ...fields, attempt }, error, 'handler met an infrastructure error: holding the partition and retrying until it is back');
      state.failures++;
      const exhausted = isNonRetryable(error) || state.failures >= maxAttempts;
      const failed = { ...fields, attempt, failures: state.failures, ...errorFields(error) };
      if (onDeadLetterTopic && exhausted) logger.error(failed, 'handler of a dead-letter topic failed; retrying (it has no dead-letter topic)');
      else logger.warn(failed, 'handler failed');
      if (exhausted && !onDeadLetterTopic) return { error, attempts: attempt };
      metrics.retries.inc({ topic, consumer_group: groupId, reason: 'handler_error' });
      await heartbeat().catch(() => undefined);
      await pause(delayFor(exhausted ? Number.MAX_SAFE_INTEGER : state.failures));
    }
  };

  /** Partitions held while the infrastructure is away: resumed by these timers. */
  const resumeTimers = new Set<NodeJS.Timeout>();

  const maxBatchSize = Math.max(2, options.maxBatchSize ?? 500);
  const batchResources: BatchResources | undefined = options.handleBatch
    ? {
        groupId,
        handleBatch: options.handleBatch,
        processed: options.processed,
        logger,
        handlerDuration: metrics.handlerDuration,
        progress,
        hold,
        infrastructureStep,
      }
    : undefined;

  const eachBatch = async ({
    batch,
    resolveOffset,
    heartbeat,
    commitOffsetsIfNecessary,
    isRunning,
    isStale,
    pause: pausePartition,
  }: EachBatchPayload): Promise<void> => {
    const { topic, partition } = batch;
    let pending: string | undefined; // next offset to commit
    let pendingCount = 0;
    const commit = async () => {
      if (pending === undefined) return;
      try {
        await commitOffsetsIfNecessary({ topics: [{ topic, partitions: [{ partition, offset: pending }] }] });
        pending = undefined;
        pendingCount = 0;
      } catch (error) {
        logger.warn({ topic, partition, ...errorFields(error) }, 'offset commit failed; the messages will be redelivered and skipped as processed');
      }
    };
    // From here on, the records of a batch whose handler failed are handled one at a time.
    let aloneUntil = 0;
    try {
      for (let index = 0; index < batch.messages.length;) {
        if (stopping || !isRunning() || isStale()) break;
        let records: KafkaMessage[];
        let outcomes: MessageOutcome[];
        try {
          const together = batchResources && index >= aloneUntil ? batchableRecords(topic, partition, batch.messages, index, maxBatchSize, progress) : [];
          if (batchResources && together.length > 1) {
            const handled = await handleRecordBatch(batchResources, topic, partition, together, heartbeat);
            if (!handled) {
              aloneUntil = index + together.length;
              continue;
            }
            records = together.map(({ record }) => record);
            outcomes = handled;
          } else {
            records = [batch.messages[index]!];
            outcomes = [await processRecord(topic, partition, records[0]!, heartbeat)];
          }
        } catch (error) {
          if (error instanceof Stopping) break;
          if (error instanceof HoldPartition) {
            // This partition waits (its record unresolved, fetched again on resume); the others go on.
            await commit();
            const resume = pausePartition();
            const timer = setTimeout(() => {
              resumeTimers.delete(timer);
              resume();
            }, error.delayMs);
            resumeTimers.add(timer);
            return;
          }
          throw error;
        }
        records.forEach((record, i) => {
          metrics.messages.inc({ topic, consumer_group: groupId, outcome: outcomes[i]! });
          progress.forget(topic, partition, record.offset);
          resolveOffset(record.offset);
        });
        index += records.length;
        pending = (BigInt(records[records.length - 1]!.offset) + 1n).toString();
        pendingCount += records.length;
        if (pendingCount >= commitEvery) await commit();
        try {
          await heartbeat();
        } catch (error) {
          // The group is rebalancing: commit what was handled, then let kafkajs rejoin.
          await commit();
          throw error;
        }
      }
    } finally {
      if (stopping || !isRunning()) await commit();
    }
  };

  await launch();
  logger.info({ topics: options.topics }, 'consumer running');

  let stopped: Promise<void> | undefined;
  return {
    groupId,
    joined: () => joinedPromise,
    assignment: () => assignment,
    isRunning: () => running && !stopping,
    stop(): Promise<void> {
      stopped ??= (async () => {
        stopping = true;
        logger.info('consumer stopping: in-flight handlers finish first');
        clearTimeout(relaunchTimer);
        for (const timer of resumeTimers) clearTimeout(timer);
        resumeTimers.clear();
        for (const wake of [...wakeups]) wake();
        try {
          await launching?.catch(() => undefined);
          await consumer?.disconnect();
        } finally {
          running = false;
          logger.info('consumer stopped');
        }
      })();
      return stopped;
    },
  };
}
