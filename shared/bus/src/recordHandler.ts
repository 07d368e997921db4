import { randomUUID } from 'node:crypto';
import type { KafkaMessage } from 'kafkajs';
import { deadLetterMessage, type DeadLetterError } from './deadLetter.js';
import { decodeMessage, type BusMessage, type OutgoingMessage } from './envelope.js';
import type { MessageContext, MessageHandler } from './handlers.js';
import { isInfrastructureError, isNonRetryable } from './infrastructureErrors.js';
import { headersOf, keyOf } from './kafkaRecord.js';
import { errorFields, type BusLogger } from './logger.js';
import type { consumerMetrics, MessageOutcome } from './metrics.js';
import type { ProcessedMessageStore } from './processed.js';
import type { RecordProgress, RecordProgressBook } from './recordProgress.js';
import { backoffDelay, failureVerdict, type BackoffCurve } from './retryPolicy.js';
import type { StopSignal } from './stopSignal.js';
import { DLQ_SUFFIX, deadLetterTopic, type BaseTopicName, type DeadLetterTopicName } from './topics.js';
import { withConsumerSpan } from './tracing.js';

/** Publishes to a dead-letter topic (the bus' producer). */
export type DeadLetterPublisher = (topic: DeadLetterTopicName, message: OutgoingMessage) => Promise<unknown>;

/**
 * Thrown out of a record's handling when the infrastructure is away: the batch stops there
 * (the record stays unresolved, uncommitted), its partition is paused for `delayMs`, then resumed,
 * and kafkajs fetches the record again. Other partitions keep flowing meanwhile.
 */
export class HoldPartition extends Error {
  constructor(readonly delayMs: number) {
    super('waiting on the infrastructure');
  }
}

type Fields = Record<string, unknown> & { topic: string };

/** What one record's handling needs of its consumer. */
export interface RecordHandlerResources {
  groupId: string;
  handle: MessageHandler;
  /** The processed store a topic's messages are checked against and recorded in (none: every delivery is handled). */
  processedOf(topic: string): ProcessedMessageStore | undefined;
  maxAttempts: number;
  backoff: BackoffCurve;
  infrastructureBackoff: BackoffCurve;
  publishDeadLetter: DeadLetterPublisher;
  logger: BusLogger;
  metrics: ReturnType<typeof consumerMetrics>;
  progress: RecordProgressBook;
  stop: StopSignal;
}

/**
 * One record at a time, at least once: decoded (malformed: to the dead-letter topic), skipped when
 * its id was processed, handled until it succeeds or proves poison (to the dead-letter topic, not
 * recorded), recorded as processed. Its progress survives a hold, so a handler that succeeded is not
 * run again just because recording it failed.
 */
export class RecordHandler {
  constructor(private readonly resources: RecordHandlerResources) {}

  /**
   * Handles one record; resolves with what became of it when it may be committed; throws Stopping
   * when it must not be (the consumer stops), HoldPartition while the infrastructure is away.
   */
  async process(topic: string, partition: number, record: KafkaMessage, heartbeat: () => Promise<void>): Promise<MessageOutcome> {
    const { logger, groupId } = this.resources;
    const processed = this.resources.processedOf(topic);
    const info = { topic, partition, offset: record.offset };
    const state = this.resources.progress.of(topic, partition, record.offset);
    const decoded = decodeMessage(topic, keyOf(record), record.value);
    if (!decoded.ok) {
      if (topic.endsWith(DLQ_SUFFIX)) {
        logger.error({ ...info, reason: decoded.reason }, 'malformed message on a dead-letter topic: skipped (no dead-letter topic of a dead-letter topic)');
        return 'dropped';
      }
      if (state.attempt === 0) logger.error({ ...info, reason: decoded.reason }, 'malformed message: sending it to the dead-letter topic');
      state.attempt = 1;
      await this.deadLetter(state, info, record, { message: decoded.reason, kind: 'malformed', attempts: 0 });
      return 'dead_lettered';
    }
    const message = decoded.message;
    const messageFields = { ...info, messageId: message.id, type: message.type };
    const started = state.handled || state.poison !== undefined;
    if (processed && !started && (await this.infrastructureStep('processed-message lookup', state, messageFields, () => processed.has(groupId, message.id)))) {
      logger.info(messageFields, 'message already processed: skipped');
      return 'duplicate';
    }
    if (!started) {
      state.poison = await this.handleUntilSettled(topic, partition, record, message, state, heartbeat);
      state.handled = state.poison === undefined;
    }
    if (state.poison) {
      // Poison: to the dead-letter topic, and NOT recorded as processed, so that a re-drive of it
      // (the same message id on the original topic) is handled by this group.
      const { error, attempts } = state.poison;
      const err = error instanceof Error ? error : new Error(String(error));
      const code = (error as { code?: unknown }).code;
      logger.error({ ...messageFields, attempts }, 'handler failed after its attempts: sending the message to the dead-letter topic');
      await this.deadLetter(state, messageFields, record, {
        message: err.message,
        name: err.name,
        ...(typeof code === 'string' ? { code } : {}),
        kind: 'handler',
        attempts,
      });
      return 'dead_lettered';
    }
    if (processed) {
      await this.infrastructureStep('processed-message record', state, messageFields, () =>
        processed.record(groupId, message.id, { ...info, outcome: 'handled' }),
      );
    }
    return 'handled';
  }

  /** One infrastructure failure of a record: logged at a bounded rate, then the partition is held (throws HoldPartition). */
  hold(state: RecordProgress, fields: Fields, error: unknown, message: string): never {
    state.infraRetries++;
    this.resources.metrics.retries.inc({ topic: fields.topic, consumer_group: this.resources.groupId, reason: 'infrastructure' });
    state.warnings.warn({ ...fields, infrastructureRetries: state.infraRetries, ...errorFields(error) }, message);
    throw new HoldPartition(backoffDelay(state.infraRetries, this.resources.infrastructureBackoff));
  }

  /** A MongoDB or Kafka call of the consumer itself (processed store, dead-letter publish): any failure holds the partition. */
  async infrastructureStep<T>(what: string, state: RecordProgress, fields: Fields, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      return this.hold(state, fields, error, `${what} failed: holding the partition and retrying until it works`);
    }
  }

  private async deadLetter(state: RecordProgress, fields: Fields & { partition: number }, record: KafkaMessage, error: DeadLetterError): Promise<void> {
    const topic = fields.topic as BaseTopicName;
    const message = deadLetterMessage({
      groupId: this.resources.groupId,
      topic,
      partition: fields.partition,
      record,
      error,
      id: randomUUID(),
      failedAt: new Date(),
    });
    await this.infrastructureStep('dead-letter publish', state, fields, () => this.resources.publishDeadLetter(deadLetterTopic(topic), message));
  }

  /**
   * Runs the handler until it succeeds (resolves undefined) or the message proves poison (resolves
   * its last error): see `failureVerdict`. An infrastructure error holds the partition instead
   * (HoldPartition) and never counts: an outage of MongoDB or Kafka dead-letters nothing.
   */
  private async handleUntilSettled(
    topic: string,
    partition: number,
    record: KafkaMessage,
    message: BusMessage,
    state: RecordProgress,
    heartbeat: () => Promise<void>,
  ): Promise<{ error: unknown; attempts: number } | undefined> {
    const { groupId, maxAttempts, logger, metrics } = this.resources;
    const key = keyOf(record);
    const headers = headersOf(record.headers);
    const fields = { topic, partition, offset: record.offset, messageId: message.id, type: message.type, maxAttempts };
    for (;;) {
      const attempt = ++state.attempt;
      const context: MessageContext = { topic, partition, offset: record.offset, key, headers, attempt, groupId };
      const error = await this.tryHandler(message, context, heartbeat);
      if (error === undefined) {
        state.warnings.recovered({ ...fields, attempt, infrastructureRetries: state.infraRetries }, 'handler succeeded: the infrastructure is back');
        return undefined;
      }
      if (isInfrastructureError(error.caught)) {
        this.hold(state, { ...fields, attempt }, error.caught, 'handler met an infrastructure error: holding the partition and retrying until it is back');
      }
      state.failures++;
      const verdict = failureVerdict({
        infrastructure: false,
        nonRetryable: isNonRetryable(error.caught),
        failures: state.failures,
        maxAttempts,
        onDeadLetterTopic: topic.endsWith(DLQ_SUFFIX),
        backoff: this.resources.backoff,
      });
      const failed = { ...fields, attempt, failures: state.failures, ...errorFields(error.caught) };
      // A dead-letter topic has no dead-letter topic: its handler is retried (at the longest backoff)
      // until it succeeds, holding that partition, with an error logged each time.
      if (verdict.kind === 'retry' && verdict.exhausted) logger.error(failed, 'handler of a dead-letter topic failed; retrying (it has no dead-letter topic)');
      else logger.warn(failed, 'handler failed');
      if (verdict.kind !== 'retry') return { error: error.caught, attempts: attempt };
      metrics.retries.inc({ topic, consumer_group: groupId, reason: 'handler_error' });
      await heartbeat().catch(() => undefined);
      await this.resources.stop.sleep(verdict.delayMs);
    }
  }

  /** One try of the handler in the message's consumer span, heartbeating meanwhile: undefined, or what it threw. */
  private async tryHandler(message: BusMessage, context: MessageContext, heartbeat: () => Promise<void>): Promise<{ caught: unknown } | undefined> {
    const { topic, partition, headers, groupId } = context;
    const beat = setInterval(() => void heartbeat().catch(() => undefined), 1_000);
    const timed = this.resources.metrics.handlerDuration.startTimer({ topic, consumer_group: groupId });
    try {
      await withConsumerSpan(
        topic,
        headers,
        { 'messaging.kafka.partition': partition, 'messaging.message.id': message.id, 'messaging.consumer.group.name': groupId },
        () => this.resources.handle(message, context),
      );
      return undefined;
    } catch (caught) {
      return { caught };
    } finally {
      clearInterval(beat);
      timed();
    }
  }
}
