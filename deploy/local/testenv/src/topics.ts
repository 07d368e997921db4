import { randomBytes } from 'node:crypto';
import { topicProvisioning, type Bus, type BusConsumer, type BusMessage, type ConsumeOptions } from '@ars/bus';
import { startKafkaMock, type KafkaMock } from '@ars/kafka-mock';

export interface TopicRecorder {
  /** Messages read so far on `topic`, in arrival order (duplicates kept). */
  messages<D = unknown>(topic: ConsumeOptions['topics'][number]): BusMessage<D>[];
  stop(): Promise<void>;
}

export interface TopicRecorderOptions {
  topics: ConsumeOptions['topics'];
  /** Prefix of the recorder's own consumer group (a random suffix keeps it its own). */
  group?: string;
  session?: ConsumeOptions['session'];
  /** Called for each message as it is read (to index them, e.g. by run id). */
  onMessage?: (message: BusMessage, topic: string) => void;
}

/**
 * Records what is published on topics, for assertions: a consumer group of its own reading from the
 * beginning, so nothing published before or after the call is missed. Resolves once it has joined.
 */
export async function recordTopics(bus: Bus, options: TopicRecorderOptions): Promise<TopicRecorder> {
  const byTopic = new Map<string, BusMessage[]>();
  const consumer: BusConsumer = await bus.consume({
    groupId: `${options.group ?? 'topic-recorder'}-${randomBytes(6).toString('hex')}`,
    topics: options.topics,
    ...(options.session ? { session: options.session } : {}),
    handle: async (message, context) => {
      byTopic.set(context.topic, [...(byTopic.get(context.topic) ?? []), message]);
      options.onMessage?.(message, context.topic);
    },
  });
  return {
    messages: <D>(topic: string) => (byTopic.get(topic) ?? []) as BusMessage<D>[],
    stop: () => consumer.stop(),
  };
}

export interface IsolatedKafkaOptions {
  /** Brokers of the cluster (default 1). */
  brokers?: number;
  /** Topics created before it answers (default: the bus's whole topic catalog). */
  topics?: { name: string; partitions: number }[];
}

/**
 * A Kafka of the test file's own (librdkafka's mock cluster, with fault injection): for tests that
 * take brokers down, or whose topics no other suite's services may read. Close it in afterAll.
 */
export function startIsolatedKafka(options: IsolatedKafkaOptions = {}): Promise<KafkaMock> {
  return startKafkaMock({ brokers: options.brokers ?? 1, topics: options.topics ?? topicProvisioning() });
}
