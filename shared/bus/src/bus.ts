import { logLevel, Partitioners, type Admin, type Producer, type RetryOptions } from 'kafkajs';
import { AppError } from '@ars/errors';
import { buildEnvelope, type BusMessage, type OutgoingMessage } from './envelope.js';
import { startConsumer, type BusConsumer, type ConsumeOptions } from './consumer.js';
import { errorFields, kafkajsLogCreator, silentLogger, type BusLogger } from './logger.js';
import { createKafkaClient } from './kafkaClient.js';
import { reportConsumerLag } from './metrics.js';
import { topicSpec, type TopicData, type TopicName } from './topics.js';
import { traceHeaders, withProducerSpans } from './tracing.js';

export interface BusOptions {
  /** Bootstrap brokers, `host:port`. */
  brokers: string[];
  /** Kafka client id (the service name). */
  clientId: string;
  /** Receives the bus' and kafkajs' logs (never the console). */
  logger?: BusLogger;
  /** kafkajs retry settings of the producer and admin client; default 8 retries from 300 ms, capped at 10 s. */
  retry?: RetryOptions;
  /** Default 3000 ms. */
  connectionTimeoutMs?: number;
  /** Default 30000 ms. */
  requestTimeoutMs?: number;
  /**
   * kafkajs idempotent producer (exactly-once writes per partition). Off by default: librdkafka's
   * mock cluster used in development cannot serve it. Turn it on against a real Kafka.
   */
  idempotentProducer?: boolean;
  /** Default `fetchMaxWaitMs` of this bus' consumers (see ConsumeOptions); default 250. */
  fetchMaxWaitMs?: number;
}

export interface Bus {
  /** Connects the producer. `publish` and `consume` connect on first use too. */
  connect(): Promise<void>;
  /**
   * Validates `message` against the topic catalog (an invalid message throws AppError
   * INTERNAL_ERROR and is never sent), adds W3C trace headers from the active context, sends it
   * with acks from all in-sync replicas. Resolves with the envelope sent. A broker that stays
   * unreachable through the retries: AppError SERVICE_UNAVAILABLE.
   */
  publish<T extends TopicName>(topic: T, message: OutgoingMessage<TopicData<T>>): Promise<BusMessage<TopicData<T>>>;
  /** Like `publish` for several messages of one topic, in one request; all validated before any is sent. */
  publishMany<T extends TopicName>(topic: T, messages: OutgoingMessage<TopicData<T>>[]): Promise<BusMessage<TopicData<T>>[]>;
  /** Starts a consumer group member (see ConsumeOptions). */
  consume(options: ConsumeOptions): Promise<BusConsumer>;
  /** True when a broker answers a metadata request and no consumer has crashed for good. */
  isReady(): Promise<boolean>;
  /** Stops every consumer (in-flight handlers finish, offsets committed), then the producer. */
  disconnect(): Promise<void>;
}

/** Creates the bus of one service. Nothing connects until `connect`, `publish` or `consume`. */
export function createBus(options: BusOptions): Bus {
  const logger = (options.logger ?? silentLogger).child({ component: 'bus' });
  const kafka = createKafkaClient({
    clientId: options.clientId,
    brokers: options.brokers,
    connectionTimeout: options.connectionTimeoutMs ?? 3_000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    retry: options.retry ?? { retries: 8, initialRetryTime: 300, maxRetryTime: 10_000 },
    logLevel: logLevel.INFO,
    logCreator: kafkajsLogCreator(options.logger ?? silentLogger),
  });
  const producer: Producer = kafka.producer({
    allowAutoTopicCreation: false,
    idempotent: options.idempotentProducer ?? false,
    // One request in flight per broker: retries cannot reorder one key's messages.
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  let connecting: Promise<void> | undefined;
  let disconnected = false;
  const consumers = new Set<BusConsumer>();
  let admin: Admin | undefined;
  let stopLagReports: (() => void) | undefined;
  const connectedAdmin = async (): Promise<Admin> => {
    admin ??= kafka.admin({ retry: { retries: 0 } });
    await admin.connect();
    return admin;
  };

  const connect = (): Promise<void> => {
    if (disconnected) return Promise.reject(new Error('bus: disconnected'));
    connecting ??= producer.connect().catch((error: unknown) => {
      connecting = undefined;
      throw AppError.unavailable(`Kafka is unreachable: ${(error as Error).message}`);
    });
    return connecting;
  };

  const send = async <D>(topic: TopicName, messages: OutgoingMessage<D>[]): Promise<BusMessage<D>[]> => {
    if (!topicSpec(topic)) throw AppError.internal(`unknown topic ${topic} (not in the topic catalog)`);
    const envelopes = messages.map((m) => buildEnvelope(topic, m));
    await connect();
    const trace = traceHeaders();
    try {
      await withProducerSpans(
        topic,
        messages.map((message) => ({ ...trace, ...message.headers })),
        (headers) =>
          producer.send({
            topic,
            acks: -1,
            messages: envelopes.map((envelope, i) => ({ key: messages[i]!.key, value: JSON.stringify(envelope), headers: headers[i] })),
          }),
      );
    } catch (error) {
      logger.error({ topic, count: messages.length, ...errorFields(error) }, 'publish failed');
      throw new AppError('SERVICE_UNAVAILABLE', `publish to ${topic} failed: ${(error as Error).message}`, { cause: error });
    }
    return envelopes;
  };

  return {
    connect,
    async publish(topic, message) {
      const [sent] = await send(topic, [message]);
      return sent!;
    },
    publishMany: (topic, messages) => (messages.length === 0 ? Promise.resolve([]) : send(topic, messages)),
    async consume(consumeOptions) {
      if (disconnected) throw new Error('bus: disconnected');
      const consumer = await startConsumer(
        kafka,
        (topic, message) => send(topic, [message]),
        { fetchMaxWaitMs: options.fetchMaxWaitMs, ...consumeOptions },
        options.logger ?? silentLogger,
      );
      const tracked: BusConsumer = {
        ...consumer,
        stop: async () => {
          await consumer.stop();
          consumers.delete(tracked);
        },
      };
      consumers.add(tracked);
      // ars_bus_consumer_lag of this bus' consumers, read at scrape time (at most every 10 s).
      stopLagReports ??= reportConsumerLag(
        connectedAdmin,
        () => [...consumers],
        (error) => logger.warn({ ...errorFields(error) }, 'consumer lag not read (the last reading stays)'),
      );
      return tracked;
    },
    async isReady() {
      if (disconnected) return false;
      for (const consumer of consumers) if (!consumer.isRunning()) return false;
      try {
        const client = await connectedAdmin();
        const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 3_000).unref());
        const cluster = await Promise.race([client.describeCluster(), timeout]);
        return cluster.brokers.length > 0;
      } catch {
        return false;
      }
    },
    async disconnect() {
      if (disconnected) return;
      disconnected = true;
      stopLagReports?.();
      await Promise.allSettled([...consumers].map((c) => c.stop()));
      consumers.clear();
      await Promise.allSettled([producer.disconnect(), admin?.disconnect()]);
    },
  };
}
