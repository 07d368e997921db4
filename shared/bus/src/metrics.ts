import type { Admin } from 'kafkajs';
import { counter, gauge, histogram, sampledEvery } from '@ars/metrics';

/** What became of a record a consumer read (`ars_bus_messages_total{outcome}`). */
export type MessageOutcome = 'handled' | 'dead_lettered' | 'duplicate' | 'dropped';

/** Why a record's handling is tried again (`ars_bus_message_retries_total{reason}`). */
export type RetryReason = 'handler_error' | 'infrastructure';

/** The consumer runner's counters, by topic and consumer group (both from the catalog and the code: bounded). */
export function consumerMetrics() {
  return {
    messages: counter({
      name: 'ars_bus_messages_total',
      help: 'Records a consumer group finished with, by topic, consumer group and outcome (handled, dead_lettered, duplicate: already processed, dropped: malformed on a dead-letter topic).',
      labelNames: ['topic', 'consumer_group', 'outcome'],
    }),
    retries: counter({
      name: 'ars_bus_message_retries_total',
      help: 'Tries of a record again, by topic, consumer group and reason (handler_error: counted toward dead-lettering; infrastructure: MongoDB/Kafka/a peer away, never dead-letters).',
      labelNames: ['topic', 'consumer_group', 'reason'],
    }),
    handlerDuration: histogram({
      name: 'ars_bus_handler_duration_seconds',
      help: 'Time of one try of a handler (of one record, or of a batch of records), by topic and consumer group.',
      labelNames: ['topic', 'consumer_group'],
    }),
  };
}

/** The partitions one consumer group member holds now, by topic. */
export interface LagSource {
  groupId: string;
  assignment(): Record<string, number[]>;
}

interface LagRow {
  topic: string;
  partition: number;
  group: string;
  lag: number;
}

/**
 * How far behind each partition a member of this bus holds is: the partition's high watermark
 * minus the group's committed offset (nothing committed yet: minus its low watermark). Only
 * assigned partitions, so summing over instances counts each partition once.
 */
async function readLag(admin: Admin, sources: readonly LagSource[]): Promise<LagRow[]> {
  const rows: LagRow[] = [];
  const watermarks = new Map<string, Map<number, { high: bigint; low: bigint }>>();
  const marksOf = async (topic: string) => {
    let marks = watermarks.get(topic);
    if (!marks) {
      marks = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, { high: BigInt(p.high), low: BigInt(p.low) }]));
      watermarks.set(topic, marks);
    }
    return marks;
  };
  for (const source of sources) {
    const assigned = Object.entries(source.assignment()).filter(([, partitions]) => partitions.length > 0);
    if (assigned.length === 0) continue;
    const committed = await admin.fetchOffsets({ groupId: source.groupId, topics: assigned.map(([topic]) => topic) });
    for (const [topic, partitions] of assigned) {
      const marks = await marksOf(topic);
      const offsets = new Map((committed.find((t) => t.topic === topic)?.partitions ?? []).map((p) => [p.partition, p.offset]));
      for (const partition of partitions) {
        const mark = marks.get(partition);
        if (!mark) continue;
        const offset = BigInt(offsets.get(partition) ?? '-1');
        const lag = mark.high - (offset < 0n ? mark.low : offset);
        rows.push({ topic, partition, group: source.groupId, lag: Number(lag < 0n ? 0n : lag) });
      }
    }
  }
  return rows;
}

/** Every bus of the process that has consumers: the lag gauge asks each at scrape time. */
const lagReaders = new Set<() => Promise<LagRow[] | undefined>>();

function lagGauge() {
  return gauge({
    name: 'ars_bus_consumer_lag',
    help: 'Records not yet handled by a consumer group on a partition its members in this process hold (high watermark minus committed offset), sampled at most every 10 s at scrape time.',
    labelNames: ['topic', 'partition', 'consumer_group'],
    collect: async (lag) => {
      const samples = await Promise.all([...lagReaders].map((read) => read()));
      lag.reset();
      for (const row of samples.flatMap((rows) => rows ?? []))
        lag.set({ topic: row.topic, partition: String(row.partition), consumer_group: row.group }, row.lag);
    },
  });
}

/** Reports the lag of `sources` (a bus' consumers) through `admin`; returns the unregister. */
export function reportConsumerLag(
  admin: () => Promise<Admin>,
  sources: () => readonly LagSource[],
  onError: (error: unknown) => void,
  minIntervalMs = 10_000,
): () => void {
  lagGauge();
  const read = sampledEvery(async () => readLag(await admin(), sources()), { minIntervalMs, timeoutMs: 3_000, onError });
  lagReaders.add(read);
  return () => void lagReaders.delete(read);
}
