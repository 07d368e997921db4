// Batches (ConsumeOptions.handleBatch) against the real broker (librdkafka's mock cluster over TCP)
// and the processed-id store against the development MongoDB server through the official driver.
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { MongoClient } from 'mongodb';
import { startMongoDevServer, type MongoDevServer } from '@ars/mongo-dev';
import { startIsolatedKafka, waitFor, type KafkaMock } from '@ars/testenv';
import {
  createBus,
  memoryProcessedStore,
  mongoProcessedStore,
  NonRetryableError,
  TransientError,
  type BatchItem,
  type Bus,
  type BusConsumer,
  type BusMessage,
  type ConsumeOptions,
} from './index.js';
import { fastSession, memoryLogger } from './testing/helpers.js';

const topicNames = ['together', 'skip', 'idempotent', 'poison', 'outage'] as const;
type TestTopic = `bus.test.batch-${(typeof topicNames)[number]}`;
let mock: KafkaMock;
let mongo: MongoDevServer;
let client: MongoClient;
let bus: Bus;
const logger = memoryLogger();
const consumers: BusConsumer[] = [];

beforeAll(async () => {
  [mock, mongo] = await Promise.all([
    startIsolatedKafka({
      brokers: 1,
      topics: topicNames.flatMap((name) => [
        { name: `bus.test.batch-${name}`, partitions: 1 },
        { name: `bus.test.batch-${name}.dlq`, partitions: 1 },
      ]),
    }),
    startMongoDevServer({}),
  ]);
  client = await MongoClient.connect(mongo.url);
  bus = createBus({ brokers: mock.brokers, clientId: 'batches-test', logger, fetchMaxWaitMs: 100 });
  await bus.connect();
});

afterEach(async () => {
  await Promise.all(consumers.splice(0).map((consumer) => consumer.stop()));
});

afterAll(async () => {
  await bus?.disconnect();
  await client?.close();
  await Promise.all([mock?.close(), mongo?.close()]);
});

/** `count` messages of one key, sent in one request before anyone consumes them: one fetch brings them all. */
async function published(topic: TestTopic, count: number, data: (i: number) => Record<string, unknown> = (i) => ({ i })): Promise<BusMessage[]> {
  return bus.publishMany(
    topic,
    Array.from({ length: count }, (_, i) => ({ key: 'run-1', type: 'test.batch', id: `${topic}:${i}`, data: data(i) })),
  );
}

interface Calls {
  /** Each handleBatch call's message ids, in order. */
  batches: string[][];
  /** Each handle call's message id. */
  singles: string[];
}

async function consume(topic: TestTopic, options: Partial<ConsumeOptions> & Pick<ConsumeOptions, 'handle' | 'handleBatch'>): Promise<void> {
  consumers.push(await bus.consume({ groupId: `group-${topic}`, topics: [topic], session: fastSession, backoffMs: { initial: 20, max: 100 }, ...options }));
}

const idsOf = (items: BatchItem[]) => items.map(({ message }) => message.id);

describe('messages a fetch brings are handled together by handleBatch, in order, each once', () => {
  test('fifty messages of one key reach the batch handler in fewer calls than messages, every id once, in the order sent', async () => {
    const topic: TestTopic = 'bus.test.batch-together';
    const sent = await published(topic, 50);
    const calls: Calls = { batches: [], singles: [] };
    const contexts: BatchItem['context'][] = [];
    await consume(topic, {
      handle: async (message) => void calls.singles.push(message.id),
      handleBatch: async (items) => {
        calls.batches.push(idsOf(items));
        contexts.push(...items.map(({ context }) => context));
      },
    });
    await waitFor('all fifty handled', () => calls.batches.flat().length + calls.singles.length === 50, 30_000);
    expect(calls.batches.flat().concat(calls.singles).sort()).toEqual(sent.map(({ id }) => id).sort());
    expect(calls.batches.length).toBeGreaterThan(0);
    expect(calls.batches.length + calls.singles.length).toBeLessThan(50);
    for (const batch of calls.batches) expect(batch.length).toBeGreaterThan(1);
    const handledOrder = [...calls.batches.flat(), ...calls.singles];
    expect(calls.batches.flat()).toEqual(sent.map(({ id }) => id).filter((id) => calls.batches.flat().includes(id)));
    expect(new Set(handledOrder).size).toBe(50);
    expect(contexts[0]).toMatchObject({ topic, partition: 0, key: 'run-1', attempt: 1, groupId: `group-${topic}` });
    expect(contexts.map(({ offset }) => Number(offset))).toEqual([...contexts.map(({ offset }) => Number(offset))].sort((a, b) => a - b));
  });
});

/** Ten messages published, ids 0, 4 and 9 recorded as processed by the group before, consumed with `options`: what the handlers got. */
async function threeOfTenProcessedBefore(
  topic: TestTopic,
  options: Partial<ConsumeOptions> = {},
): Promise<{ processed: ReturnType<typeof memoryProcessedStore>; calls: Calls }> {
  const processed = memoryProcessedStore();
  for (const i of [0, 4, 9]) await processed.record(`group-${topic}`, `${topic}:${i}`, { topic, partition: 0, offset: String(i), outcome: 'handled' });
  await published(topic, 10);
  const calls: Calls = { batches: [], singles: [] };
  await consume(topic, {
    processed,
    ...options,
    handle: async (message) => void calls.singles.push(message.id),
    handleBatch: async (items) => void calls.batches.push(idsOf(items)),
  });
  return { processed, calls };
}

describe('ids the group already processed are skipped in a batch, the others handled and recorded', () => {
  test('three of ten recorded before: the batch handler gets the seven others, and all ten are recorded after', async () => {
    const topic: TestTopic = 'bus.test.batch-skip';
    const { processed, calls } = await threeOfTenProcessedBefore(topic);
    await waitFor('seven handled and ten recorded', () => calls.batches.flat().length + calls.singles.length === 7 && processed.size() === 10, 30_000);
    expect([...calls.batches.flat(), ...calls.singles].sort()).toEqual([1, 2, 3, 5, 6, 7, 8].map((i) => `${topic}:${i}`).sort());
  });
});

describe('a topic named in idempotentTopics is neither looked up in nor recorded to the processed store: its handler dedupes by itself', () => {
  test('three of ten recorded before: all ten reach the handlers, and the store holds the same three after', async () => {
    const topic: TestTopic = 'bus.test.batch-idempotent';
    const { processed, calls } = await threeOfTenProcessedBefore(topic, { idempotentTopics: [topic] });
    await waitFor('ten handled', () => calls.batches.flat().length + calls.singles.length === 10, 30_000);
    expect([...calls.batches.flat(), ...calls.singles].sort()).toEqual(Array.from({ length: 10 }, (_, i) => `${topic}:${i}`).sort());
    expect(processed.size()).toBe(3);
    expect(logger.entries.some((entry) => entry.fields.topic === topic && entry.msg === 'message already processed: skipped')).toBe(false);
  });
});

describe('a batch handler failing on a message of its own: each message is handled alone, so retries and dead letters stay per message', () => {
  test('one poison message among eight: the seven others are handled once each, the poison one goes to the dead-letter topic', async () => {
    const topic: TestTopic = 'bus.test.batch-poison';
    await published(topic, 8, (i) => ({ i, poison: i === 3 }));
    const calls: Calls = { batches: [], singles: [] };
    const deadLetters: BusMessage[] = [];
    consumers.push(
      await bus.consume({
        groupId: `dlq-${topic}`,
        topics: [`${topic}.dlq`],
        session: fastSession,
        handle: async (message) => void deadLetters.push(message),
      }),
    );
    await consume(topic, {
      maxAttempts: 2,
      handle: async (message) => {
        if ((message.data as { poison: boolean }).poison) throw new NonRetryableError('this message can never be handled');
        calls.singles.push(message.id);
      },
      handleBatch: async (items) => {
        if (items.some(({ message }) => (message.data as { poison: boolean }).poison)) throw new Error('one message of the batch is poison');
        calls.batches.push(idsOf(items));
      },
    });
    await waitFor('seven handled and one dead letter', () => calls.batches.flat().length + calls.singles.length === 7 && deadLetters.length === 1, 30_000);
    expect([...calls.batches.flat(), ...calls.singles].sort()).toEqual([0, 1, 2, 4, 5, 6, 7].map((i) => `${topic}:${i}`).sort());
    expect(deadLetters[0]!.data).toMatchObject({ topic, offset: '3', error: { kind: 'handler', message: 'this message can never be handled' } });
    expect(logger.entries.some((entry) => entry.msg === 'batch handler failed: its messages are handled one at a time' && entry.fields.topic === topic)).toBe(
      true,
    );
  });
});

describe('the infrastructure away during a batch holds the partition: nothing is lost, nothing dead-lettered', () => {
  test('a batch handler meeting a TransientError twice: every message is handled once it is back, in order, none dead-lettered', async () => {
    const topic: TestTopic = 'bus.test.batch-outage';
    const sent = await published(topic, 20);
    let outages = 2;
    const handled: string[] = [];
    await consume(topic, {
      infrastructureBackoffMs: { initial: 50, max: 100 },
      handle: async (message) => void handled.push(message.id),
      handleBatch: async (items) => {
        if (outages > 0) {
          outages--;
          throw new TransientError('the database is away');
        }
        handled.push(...idsOf(items));
      },
    });
    await waitFor('all twenty handled', () => new Set(handled).size === 20, 30_000);
    expect(handled).toEqual(sent.map(({ id }) => id));
    expect(logger.entries.some((entry) => entry.fields.topic === topic && String(entry.msg).includes('dead-letter'))).toBe(false);
  });
});

describe('the MongoDB processed-id store answers and records a batch in one request each', () => {
  test('hasMany names exactly the ids recorded; recordMany of ids partly recorded already records the rest without failing', async () => {
    const store = mongoProcessedStore(client.db('batches'));
    await store.ensureIndexes();
    const info = { topic: 'bus.test.batch-skip', partition: 0, offset: '0', outcome: 'handled' as const };
    await store.record('g', 'a', info);
    expect(await store.hasMany('g', ['a', 'b', 'c'])).toEqual(new Set(['a']));
    await store.recordMany(
      'g',
      ['a', 'b', 'c'].map((messageId) => ({ messageId, info })),
    );
    expect(await store.hasMany('g', ['a', 'b', 'c', 'd'])).toEqual(new Set(['a', 'b', 'c']));
    expect(await store.hasMany('other-group', ['a', 'b'])).toEqual(new Set());
    expect(await store.collection.countDocuments({ group: 'g' })).toBe(3);
  });
});
