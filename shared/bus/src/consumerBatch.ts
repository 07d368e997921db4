import type { KafkaMessage } from 'kafkajs';
import { decodeMessage, type BusMessage } from './envelope.js';
import type { BatchHandler, BatchItem } from './handlers.js';
import { isInfrastructureError } from './infrastructureErrors.js';
import { headersOf, keyOf } from './kafkaRecord.js';
import { errorFields, type BusLogger } from './logger.js';
import type { consumerMetrics, MessageOutcome } from './metrics.js';
import type { ProcessedMessageStore } from './processed.js';
import type { RecordHandler } from './recordHandler.js';
import type { RecordProgressBook } from './recordProgress.js';
import { DLQ_SUFFIX } from './topics.js';
import { withConsumerSpans } from './tracing.js';

/** A record whose message decoded, ready for a handler. */
export interface DecodedRecord {
  record: KafkaMessage;
  message: BusMessage;
  key: string | null;
  headers: Record<string, string>;
}

/** The parts of a consumer a batch is handled with. */
export interface BatchResources {
  groupId: string;
  handleBatch: BatchHandler;
  /** The processed store a topic's messages are checked against and recorded in (none: every delivery is handled). */
  processedOf(topic: string): ProcessedMessageStore | undefined;
  logger: BusLogger;
  handlerDuration: ReturnType<typeof consumerMetrics>['handlerDuration'];
  progress: RecordProgressBook;
  /** The one-record handler's holds: an infrastructure failure logged at a bounded rate, then the partition held (throws). */
  holds: Pick<RecordHandler, 'hold' | 'infrastructureStep'>;
}

/**
 * The records from `start` a batch handler may take: consecutive first deliveries (none held or
 * retried before) whose message decodes, of a topic that is not a dead-letter topic; at most
 * `max`. Everything else goes the one-record way, which dead-letters and retries record by record.
 */
export function batchableRecords(
  topic: string,
  partition: number,
  records: KafkaMessage[],
  start: number,
  max: number,
  progress: RecordProgressBook,
): DecodedRecord[] {
  if (topic.endsWith(DLQ_SUFFIX)) return [];
  const taken: DecodedRecord[] = [];
  for (let i = start; i < records.length && taken.length < max; i++) {
    const record = records[i]!;
    if (progress.has(topic, partition, record.offset)) break;
    const key = keyOf(record);
    const decoded = decodeMessage(topic, key, record.value);
    if (!decoded.ok) break;
    taken.push({ record, message: decoded.message, key, headers: headersOf(record.headers) });
  }
  return taken;
}

/**
 * Handles `records` (consecutive, of one partition) with one call of the batch handler: one lookup
 * of the ids already processed (skipped, `duplicate`), one handler call for the rest, one record of
 * them as processed. Resolves each record's outcome, in order; or undefined when the handler failed
 * otherwise than on the infrastructure: then each record must be handled alone (so one poison
 * message is dead-lettered by itself, and the others are handled). The infrastructure away holds
 * the partition at the first record (throws, see RecordHandler.hold), which is then handled alone.
 */
export async function handleRecordBatch(
  resources: BatchResources,
  topic: string,
  partition: number,
  records: DecodedRecord[],
  heartbeat: () => Promise<void>,
): Promise<MessageOutcome[] | undefined> {
  const { groupId, logger } = resources;
  const processed = resources.processedOf(topic);
  const first = records[0]!;
  const state = resources.progress.of(topic, partition, first.record.offset);
  const fields = { topic, partition, offset: first.record.offset, count: records.length };
  const ids = records.map(({ message }) => message.id);
  const done = processed
    ? await resources.holds.infrastructureStep('processed-message lookup', state, fields, () => processed.hasMany(groupId, ids))
    : new Set<string>();
  for (const { message } of records) {
    if (done.has(message.id)) logger.info({ topic, partition, messageId: message.id, type: message.type }, 'message already processed: skipped');
  }
  const fresh = records.filter(({ message }) => !done.has(message.id));
  if (fresh.length > 0) {
    state.attempt++;
    const items: BatchItem[] = fresh.map(({ record, message, key, headers }) => ({
      message,
      context: { topic, partition, offset: record.offset, key, headers, attempt: 1, groupId },
    }));
    const beat = setInterval(() => void heartbeat().catch(() => undefined), 1_000);
    const timed = resources.handlerDuration.startTimer({ topic, consumer_group: groupId });
    try {
      await withConsumerSpans(
        topic,
        fresh.map(({ headers, message }) => ({
          headers,
          attributes: { 'messaging.kafka.partition': partition, 'messaging.message.id': message.id, 'messaging.consumer.group.name': groupId },
        })),
        () => resources.handleBatch(items),
      );
    } catch (error) {
      if (isInfrastructureError(error)) {
        resources.holds.hold(state, fields, error, 'batch handler met an infrastructure error: holding the partition and retrying until it is back');
      }
      logger.warn({ ...fields, ...errorFields(error) }, 'batch handler failed: its messages are handled one at a time');
      return undefined;
    } finally {
      clearInterval(beat);
      timed();
    }
    if (processed) {
      await resources.holds.infrastructureStep('processed-message record', state, fields, () =>
        processed.recordMany(
          groupId,
          fresh.map(({ record, message }) => ({ messageId: message.id, info: { topic, partition, offset: record.offset, outcome: 'handled' as const } })),
        ),
      );
    }
  }
  return records.map(({ message }) => (done.has(message.id) ? 'duplicate' : 'handled'));
}
