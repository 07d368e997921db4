import { logLevel, Partitioners, type Consumer, type Kafka, type KafkaMessage, type Producer } from 'kafkajs';
import { decodeMessage } from './envelope.js';
import { kafkajsLogCreator, silentLogger, type BusLogger } from './logger.js';
import { createKafkaClient } from './kafkaClient.js';
import { keyOf } from './kafkaRecord.js';
import { DLQ_SUFFIX, deadLetterTopic, topicSpec, type BaseTopicName, type DeadLetterData } from './topics.js';

/**
 * Re-drive of a dead-letter topic: each dead letter's original record (value, key and headers, as
 * it was read) is published again to its original topic, where the consumer groups see the same
 * message id: a group that handled it already skips it (its processed store), the group that
 * dead-lettered it handles it (a dead-lettered id is never recorded as processed).
 *
 * The dead-letter topic is read by a consumer group of the re-drive's own, which commits after
 * each republish: running it again re-drives only what was dead-lettered since.
 */
export interface RedriveOptions {
  brokers: string[];
  /** The original topic (its `<topic>.dlq` is read). */
  topic: BaseTopicName;
  /** Only the dead letters of this consumer group (`error.consumerGroup`); others are left for a run without it. */
  consumerGroup?: string;
  /** Print what would be re-driven; republish and commit nothing. */
  dryRun?: boolean;
  /** At most this many dead letters re-driven (or listed); the rest stay for the next run. */
  limit?: number;
  /** Called with each dead letter's outcome, in order. */
  onLine?: (line: RedriveLine) => void;
  logger?: BusLogger;
  clientId?: string;
  /** Group membership timings (kafkajs defaults otherwise); tests use small values. */
  session?: { sessionTimeoutMs?: number; rebalanceTimeoutMs?: number; heartbeatIntervalMs?: number };
}

export interface RedriveLine {
  /** Where the dead letter is. */
  deadLetterTopic: string;
  partition: number;
  offset: string;
  /** What happened to it: republished, would be (dry run), or skipped (and why). */
  action: 'redriven' | 'would-redrive' | 'skipped';
  reason?: string;
  /** The original record: topic, partition, offset, key, message id (when its value is an envelope). */
  original?: { topic: string; partition: number; offset: string; key: string | null; messageId: string | null };
  /** Why it was dead-lettered. */
  error?: { message: string; kind?: string; attempts: number; consumerGroup: string; failedAt: string };
}

export interface RedriveSummary {
  topic: string;
  deadLetterTopic: string;
  /** The re-drive's consumer group on the dead-letter topic. */
  groupId: string;
  dryRun: boolean;
  redriven: number;
  wouldRedrive: number;
  skipped: number;
  /** Dead letters left unread because of `limit`. */
  left: number;
}

/** The re-drive's own consumer group for `topic`'s dead letters (per failing consumer group when filtered). */
export function redriveGroupId(topic: string, consumerGroup?: string): string {
  return consumerGroup ? `bus-redrive.${topic}.${consumerGroup}` : `bus-redrive.${topic}`;
}

/** The original record's value as it was read (the dead letter keeps base64 for non-UTF-8 values). */
export function originalValue(data: Pick<DeadLetterData, 'value' | 'valueEncoding'>): Buffer | null {
  if (data.value === null) return null;
  return Buffer.from(data.value, data.valueEncoding === 'base64' ? 'base64' : 'utf8');
}

function messageIdOf(value: Buffer | null): string | null {
  if (value === null) return null;
  try {
    const parsed: unknown = JSON.parse(value.toString('utf8'));
    const id = (parsed as { id?: unknown } | null)?.id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

/** Where to start and stop in each partition of `dlq`: after the group's committed offset (else at the low watermark), up to the end now. */
async function redriveRange(kafka: Kafka, dlq: string, groupId: string): Promise<{ starts: Map<number, bigint>; ends: Map<number, bigint> }> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [offsets, committed] = await Promise.all([admin.fetchTopicOffsets(dlq), admin.fetchOffsets({ groupId, topics: [dlq] })]);
    const ends = new Map(offsets.map((o) => [o.partition, BigInt(o.high)]));
    const low = new Map(offsets.map((o) => [o.partition, BigInt(o.low)]));
    const done = new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
    const starts = new Map(
      [...ends.keys()].map((p) => {
        const at = done.get(p) ?? -1n;
        const first = low.get(p) ?? 0n;
        return [p, at < first ? first : at];
      }),
    );
    return { starts, ends };
  } finally {
    await admin.disconnect();
  }
}

/**
 * What becomes of one record of `<base>.dlq`: its line (skipped, and why: not a dead letter, of
 * another topic, of another group), and the original record to republish on `base` unless skipped
 * or a dry run.
 */
function planRedrive(
  base: BaseTopicName,
  partition: number,
  record: KafkaMessage,
  options: { dryRun: boolean; consumerGroup: string | undefined },
): { line: RedriveLine; republish?: { key: string | null; value: Buffer | null; headers: Record<string, string> } } {
  const dlq = deadLetterTopic(base);
  const at = { deadLetterTopic: dlq, partition, offset: record.offset };
  const decoded = decodeMessage(dlq, keyOf(record), record.value);
  if (!decoded.ok) return { line: { ...at, action: 'skipped', reason: `not a dead letter: ${decoded.reason}` } };
  const data = decoded.message.data as DeadLetterData;
  const value = originalValue(data);
  const line: RedriveLine = {
    ...at,
    action: options.dryRun ? 'would-redrive' : 'redriven',
    original: { topic: data.topic, partition: data.partition, offset: data.offset, key: data.key, messageId: messageIdOf(value) },
    error: {
      message: data.error.message,
      kind: data.error.kind,
      attempts: data.error.attempts,
      consumerGroup: data.error.consumerGroup,
      failedAt: data.error.failedAt,
    },
  };
  if (data.topic !== base) return { line: { ...line, action: 'skipped', reason: `its original topic is ${data.topic}, not ${base}` } };
  if (options.consumerGroup && data.error.consumerGroup !== options.consumerGroup) {
    return { line: { ...line, action: 'skipped', reason: `dead-lettered by group ${data.error.consumerGroup}` } };
  }
  return options.dryRun ? { line } : { line, republish: { key: data.key, value, headers: data.headers } };
}

/** Reads `<topic>.dlq` up to its end as of now and re-drives (or lists) each dead letter. */
export async function redriveDeadLetters(options: RedriveOptions): Promise<RedriveSummary> {
  const base = options.topic;
  if (base.endsWith(DLQ_SUFFIX) || !topicSpec(base)) throw new Error(`redrive: ${base} is not a topic of the catalog (give the original topic, not its .dlq)`);
  const dlq = deadLetterTopic(base);
  const groupId = redriveGroupId(base, options.consumerGroup);
  const dryRun = options.dryRun ?? false;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const logger = options.logger ?? silentLogger;
  const summary: RedriveSummary = { topic: base, deadLetterTopic: dlq, groupId, dryRun, redriven: 0, wouldRedrive: 0, skipped: 0, left: 0 };
  const kafka = createKafkaClient({
    clientId: options.clientId ?? 'ars-redrive',
    brokers: options.brokers,
    connectionTimeout: 3_000,
    retry: { retries: 8, initialRetryTime: 300, maxRetryTime: 10_000 },
    logLevel: logLevel.WARN,
    logCreator: kafkajsLogCreator(logger),
  });

  // Where to stop: the end of each partition now, so dead letters arriving meanwhile wait for the next run.
  const { starts, ends } = await redriveRange(kafka, dlq, groupId);
  const waiting = [...ends].filter(([p, end]) => (starts.get(p) ?? 0n) < end);
  const total = waiting.reduce((sum, [p, end]) => sum + Number(end - (starts.get(p) ?? 0n)), 0);
  if (total === 0 || limit <= 0) {
    summary.left = total;
    return summary;
  }

  const producer: Producer = kafka.producer({ allowAutoTopicCreation: false, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
  const consumer: Consumer = kafka.consumer({
    groupId,
    allowAutoTopicCreation: false,
    sessionTimeout: options.session?.sessionTimeoutMs ?? 30_000,
    rebalanceTimeout: options.session?.rebalanceTimeoutMs ?? 60_000,
    heartbeatInterval: options.session?.heartbeatIntervalMs ?? 3_000,
    maxWaitTimeInMs: 250,
  });
  const pending = new Set(waiting.map(([p]) => p));
  let settled!: () => void;
  let failed!: (error: unknown) => void;
  const finished = new Promise<void>((resolve, reject) => {
    settled = resolve;
    failed = reject;
  });
  let handled = 0;

  const redriveOne = async (partition: number, record: KafkaMessage): Promise<RedriveLine> => {
    const { line, republish } = planRedrive(base, partition, record, { dryRun, consumerGroup: options.consumerGroup });
    if (republish) await producer.send({ topic: base, acks: -1, messages: [republish] });
    return line;
  };

  try {
    if (!dryRun) await producer.connect();
    await consumer.connect();
    await consumer.subscribe({ topics: [dlq], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        const end = ends.get(partition) ?? 0n;
        if (!pending.has(partition) || BigInt(message.offset) >= end) return;
        if (handled >= limit) {
          pending.clear();
          settled();
          return;
        }
        try {
          const line = await redriveOne(partition, message);
          handled++;
          if (line.action === 'redriven') summary.redriven++;
          else if (line.action === 'would-redrive') summary.wouldRedrive++;
          else summary.skipped++;
          // After each republish, so a re-run never re-drives it again (a dry run commits nothing).
          if (!dryRun) await consumer.commitOffsets([{ topic: dlq, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
          options.onLine?.(line);
        } catch (error) {
          failed(error);
          return;
        }
        if (BigInt(message.offset) + 1n >= end) pending.delete(partition);
        if (pending.size === 0 || handled >= limit) settled();
      },
    });
    await finished;
  } finally {
    await consumer.disconnect().catch(() => undefined);
    await producer.disconnect().catch(() => undefined);
  }
  summary.left = total - handled;
  return summary;
}
