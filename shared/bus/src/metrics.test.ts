// The consumer metrics against the real broker (librdkafka's mock over TCP): records handled,
// duplicates, retries and dead letters counted by topic and consumer group; the lag of the
// partitions the member holds read from Kafka (high watermark − committed offset) at scrape time.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { metricsText, parseMetricsText, sumOf, type Scrape } from '@ars/metrics';
import { startIsolatedKafka, waitFor, type KafkaMock } from '@ars/testenv';
import { createBus, memoryProcessedStore, NonRetryableError, type Bus, type BusConsumer } from './index.js';
import { fastSession, memoryLogger } from './testing/helpers.js';

const GROUP = 'bus-metrics';
let mock: KafkaMock;
let bus: Bus;
let consumer: BusConsumer;
/** While false the handler of `bus.test.lag` fails as infrastructure would, so its records wait. */
let lagOpen = false;

const scrape = async (): Promise<Scrape> => parseMetricsText((await metricsText()).body);
const messages = (s: Scrape, topic: string, outcome: string) => sumOf(s, 'ars_bus_messages_total', { topic, consumer_group: GROUP, outcome });

beforeAll(async () => {
  mock = await startIsolatedKafka({
    brokers: 1,
    topics: ['counted', 'lag'].flatMap((name) => [
      { name: `bus.test.${name}`, partitions: 2 },
      { name: `bus.test.${name}.dlq`, partitions: 1 },
    ]),
  });
  bus = createBus({ brokers: mock.brokers, clientId: 'bus-metrics-test', logger: memoryLogger(), fetchMaxWaitMs: 100 });
  consumer = await bus.consume({
    groupId: GROUP,
    topics: ['bus.test.counted', 'bus.test.lag'],
    session: fastSession,
    processed: memoryProcessedStore(),
    maxAttempts: 2,
    backoffMs: { initial: 10, max: 20 },
    infrastructureBackoffMs: { initial: 50, max: 100 },
    handle: async (message, context) => {
      if (context.topic === 'bus.test.lag') {
        if (!lagOpen) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), { name: 'MongoNetworkError' });
        return;
      }
      const data = message.data as { poison?: 'once' | 'always' | 'fatal' };
      if (data.poison === 'always') throw new Error('poison');
      if (data.poison === 'fatal') throw new NonRetryableError('fatal');
    },
  });
  await consumer.joined();
}, 60_000);

afterAll(async () => {
  await bus?.disconnect();
  await mock?.close();
});

describe('records are counted by topic, consumer group and outcome; retries by reason', () => {
  test('handled, a duplicate id, poison after its attempts (one retry), a fatal error at once', async () => {
    const before = await scrape();
    await bus.publish('bus.test.counted', { key: 'a', type: 't', id: 'counted-1', data: {} });
    await bus.publish('bus.test.counted', { key: 'a', type: 't', id: 'counted-1', data: {} });
    await bus.publish('bus.test.counted', { key: 'b', type: 't', id: 'counted-2', data: { poison: 'always' } });
    await bus.publish('bus.test.counted', { key: 'c', type: 't', id: 'counted-3', data: { poison: 'fatal' } });
    const after = await waitFor('four records finished with', async () => {
      const s = await scrape();
      const done = ['handled', 'duplicate', 'dead_lettered'].reduce(
        (n, outcome) => n + messages(s, 'bus.test.counted', outcome) - messages(before, 'bus.test.counted', outcome),
        0,
      );
      return done >= 4 ? s : undefined;
    });
    const moved = (name: string, labels: Record<string, string>) => sumOf(after, name, labels) - sumOf(before, name, labels);
    expect(moved('ars_bus_messages_total', { topic: 'bus.test.counted', consumer_group: GROUP, outcome: 'handled' })).toBe(1);
    expect(moved('ars_bus_messages_total', { topic: 'bus.test.counted', consumer_group: GROUP, outcome: 'duplicate' })).toBe(1);
    expect(moved('ars_bus_messages_total', { topic: 'bus.test.counted', consumer_group: GROUP, outcome: 'dead_lettered' })).toBe(2);
    // maxAttempts 2: the poison is tried again once; the NonRetryableError never.
    expect(moved('ars_bus_message_retries_total', { topic: 'bus.test.counted', consumer_group: GROUP, reason: 'handler_error' })).toBe(1);
    expect(moved('ars_bus_handler_duration_seconds_count', { topic: 'bus.test.counted', consumer_group: GROUP })).toBe(4);
  }, 30_000);
});

describe('consumer lag: high watermark minus committed offset of the partitions this member holds, read at scrape time', () => {
  test('records held by an infrastructure outage show as lag (and infrastructure retries); once it is back the lag drains to 0', async () => {
    await bus.publishMany(
      'bus.test.lag',
      Array.from({ length: 3 }, (_, i) => ({ key: 'one-key', type: 't', id: `lag-${i}`, data: {} })),
    );
    const lagOf = (s: Scrape) =>
      s.samples.filter((sample) => sample.name === 'ars_bus_consumer_lag' && sample.labels.topic === 'bus.test.lag' && sample.labels.consumer_group === GROUP);
    // The lag is sampled at most every 10 s: the first scrape after that sees the held records.
    const held = await waitFor(
      'the held records as lag',
      async () => {
        const s = await scrape();
        return lagOf(s).reduce((n, sample) => n + sample.value, 0) === 3 ? s : undefined;
      },
      { timeoutMs: 25_000, intervalMs: 500 },
    );
    expect(
      lagOf(held)
        .map((sample) => sample.labels.partition)
        .sort(),
    ).toEqual(['0', '1']);
    expect(sumOf(held, 'ars_bus_message_retries_total', { topic: 'bus.test.lag', consumer_group: GROUP, reason: 'infrastructure' })).toBeGreaterThan(0);
    lagOpen = true;
    await waitFor(
      'the lag drained',
      async () => {
        const s = await scrape();
        return lagOf(s).length === 2 && lagOf(s).every((sample) => sample.value === 0) ? s : undefined;
      },
      { timeoutMs: 25_000, intervalMs: 500 },
    );
  }, 60_000);
});
