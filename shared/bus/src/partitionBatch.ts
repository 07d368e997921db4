import type { EachBatchPayload, KafkaMessage } from 'kafkajs';
import { batchableRecords, handleRecordBatch, type BatchResources } from './consumerBatch.js';
import { errorFields, type BusLogger } from './logger.js';
import type { consumerMetrics, MessageOutcome } from './metrics.js';
import type { RecordProgressBook } from './recordProgress.js';
import { HoldPartition, type RecordHandler } from './recordHandler.js';
import { Stopping, type StopSignal } from './stopSignal.js';

/** What the handling of a fetched batch of one partition needs of its consumer. */
export interface PartitionBatchResources {
  groupId: string;
  logger: BusLogger;
  metrics: ReturnType<typeof consumerMetrics>;
  progress: RecordProgressBook;
  records: RecordHandler;
  /** Present when the consumer has a `handleBatch`. */
  batches: BatchResources | undefined;
  maxBatchSize: number;
  commitEvery: number;
  stop: StopSignal;
  /** Partitions held while the infrastructure is away: resumed by these timers (cleared on stop). */
  resumeTimers: Set<NodeJS.Timeout>;
}

/**
 * kafkajs' `eachBatch`: the partition's records in order, together where the batch handler may take
 * them, else one at a time; each resolved and its offset committed (every `commitEvery`) once
 * handled. The infrastructure away pauses the partition for the hold's delay (the record stays
 * unresolved and is fetched again on resume); stopping, or a rebalance, commits what was handled.
 */
export async function handlePartitionBatch(resources: PartitionBatchResources, payload: EachBatchPayload): Promise<void> {
  const { batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale } = payload;
  const { topic, partition } = batch;
  const { groupId, logger, metrics, progress, stop } = resources;
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
      if (stop.stopping || !isRunning() || isStale()) break;
      let handled: Handled;
      try {
        handled = await handleNext(resources, payload, index, aloneUntil);
      } catch (error) {
        if (error instanceof Stopping) break;
        if (error instanceof HoldPartition) {
          // This partition waits (its record unresolved, fetched again on resume); the others go on.
          await commit();
          holdPartition(resources, payload, error.delayMs);
          return;
        }
        throw error;
      }
      if ('failedBatch' in handled) {
        aloneUntil = index + handled.failedBatch;
        continue;
      }
      const { records, outcomes } = handled;
      records.forEach((record, i) => {
        metrics.messages.inc({ topic, consumer_group: groupId, outcome: outcomes[i]! });
        progress.forget(topic, partition, record.offset);
        resolveOffset(record.offset);
      });
      index += records.length;
      pending = (BigInt(records[records.length - 1]!.offset) + 1n).toString();
      pendingCount += records.length;
      if (pendingCount >= resources.commitEvery) await commit();
      try {
        await heartbeat();
      } catch (error) {
        // The group is rebalancing: commit what was handled, then let kafkajs rejoin.
        await commit();
        throw error;
      }
    }
  } finally {
    if (stop.stopping || !isRunning()) await commit();
  }
}

/** Records handled, with what became of each; or how many records a failed batch handler leaves to be handled one at a time. */
type Handled = { records: KafkaMessage[]; outcomes: MessageOutcome[] } | { failedBatch: number };

/**
 * The records from `index` handled: together by the batch handler when two or more may go
 * (`batchableRecords`), else the one record alone.
 */
async function handleNext(resources: PartitionBatchResources, payload: EachBatchPayload, index: number, aloneUntil: number): Promise<Handled> {
  const { batch, heartbeat } = payload;
  const { topic, partition } = batch;
  const together =
    resources.batches && index >= aloneUntil ? batchableRecords(topic, partition, batch.messages, index, resources.maxBatchSize, resources.progress) : [];
  if (resources.batches && together.length > 1) {
    const outcomes = await handleRecordBatch(resources.batches, topic, partition, together, heartbeat);
    return outcomes ? { records: together.map(({ record }) => record), outcomes } : { failedBatch: together.length };
  }
  const record = batch.messages[index]!;
  return { records: [record], outcomes: [await resources.records.process(topic, partition, record, heartbeat)] };
}

function holdPartition(resources: PartitionBatchResources, payload: EachBatchPayload, delayMs: number): void {
  const resume = payload.pause();
  const timer = setTimeout(() => {
    resources.resumeTimers.delete(timer);
    resume();
  }, delayMs);
  resources.resumeTimers.add(timer);
}
