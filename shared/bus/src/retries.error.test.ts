// Nothing lost on the bus, against the real broker (librdkafka's mock over TCP) and a real MongoDB
// server (the development one, in-process) that is stopped and started again on its port:
// infrastructure errors are retried for as long as they last, only poison reaches the dead-letter
// topic, a dead-lettered id is not "processed", and a re-drive gets it handled exactly once.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { MongoClient } from 'mongodb';
import { startMongoDevServer, type MongoDevServer } from '@ars/mongo-dev';
import { startIsolatedKafka, waitFor, type KafkaMock } from '@ars/testenv';
import {
  createBus,
  memoryProcessedStore,
  NonRetryableError,
  redriveDeadLetters,
  redriveGroupId,
  type Bus,
  type BusMessage,
  type MessageContext,
} from './index.js';
import { fastSession, memoryLogger } from './testing/helpers.js';

const GROUP = 'bus-retries';
let mock: KafkaMock;
let bus: Bus;
let mongo: MongoDevServer;
let client: MongoClient;
const logger = memoryLogger();
const processed = memoryProcessedStore();

type Seen = { message: BusMessage; context: MessageContext; outcome: 'ok' | 'failed' };
/** Every delivery to the handler, per topic, with how it ended. */
const seen = new Map<string, Seen[]>();
const seenOn = (topic: string): Seen[] => {
  const list = seen.get(topic) ?? [];
  seen.set(topic, list);
  return list;
};
/** Message ids the handler refuses as poison (until a test forgives them). */
const poisoned = new Set<string>();

beforeAll(async () => {
  mock = await startIsolatedKafka({
    brokers: 3,
    topics: ['outage', 'poison'].flatMap((name) => [
      { name: `bus.test.${name}`, partitions: 4 },
      { name: `bus.test.${name}.dlq`, partitions: 1 },
    ]),
  });
  mongo = await startMongoDevServer({ port: 0 });
  client = new MongoClient(`${mongo.url}?directConnection=true`, { serverSelectionTimeoutMS: 2_000, connectTimeoutMS: 2_000 });
  await client.connect();
  bus = createBus({ brokers: mock.brokers, clientId: 'bus-retries-test', logger, fetchMaxWaitMs: 100 });
  await bus.connect();
  await bus.consume({
    groupId: GROUP,
    topics: ['bus.test.outage', 'bus.test.outage.dlq', 'bus.test.poison', 'bus.test.poison.dlq'],
    session: fastSession,
    maxAttempts: 2,
    backoffMs: { initial: 20, max: 50 },
    infrastructureBackoffMs: { initial: 50, max: 200 },
    retryLogIntervalMs: 600_000,
    processed,
    partitionsConsumedConcurrently: 8,
    handle: async (message, context) => {
      const entry: Seen = { message, context, outcome: 'failed' };
      seenOn(context.topic).push(entry);
      if (poisoned.has(message.id)) throw new NonRetryableError('cannot handle this one');
      if (context.topic === 'bus.test.outage') {
        // The effect lives in MongoDB: while it is away this throws the driver's own errors.
        await client
          .db('bus_retries')
          .collection<{ _id: string }>('effects')
          .updateOne({ _id: message.id }, { $inc: { count: 1 } }, { upsert: true });
      }
      entry.outcome = 'ok';
    },
  });
}, 60_000);

afterAll(async () => {
  await bus?.disconnect();
  await client?.close();
  await mongo?.close();
  await mock?.close();
});

describe('an infrastructure error is retried for as long as it lasts, holding only its partition, and never dead-lettered', () => {
  test('MongoDB stopped: the message is retried past maxAttempts (2), not dead-lettered, and handled once it is back', async () => {
    const port = mongo.port;
    await mongo.close();
    const held = await bus.publish('bus.test.outage', { key: 'agg', type: 'test.step', data: { n: 1 } });
    const attemptsOf = () => seenOn('bus.test.outage').filter((s) => s.message.id === held.id);
    await waitFor('six attempts against the stopped MongoDB', () => attemptsOf().length >= 6, 60_000);
    expect(attemptsOf().every((s) => s.outcome === 'failed')).toBe(true);
    // Only that partition is held: a message of another topic (no MongoDB in its handler) goes through meanwhile.
    const meanwhile = await bus.publish('bus.test.poison', { key: 'other', type: 'test.step', data: { n: 0 } });
    await waitFor(
      'a message of another partition handled during the outage',
      () => seenOn('bus.test.poison').some((s) => s.message.id === meanwhile.id && s.outcome === 'ok'),
      30_000,
    );
    expect(attemptsOf().some((s) => s.outcome === 'ok')).toBe(false);
    // Warnings are bounded: one for the whole wait (the interval here is 10 minutes).
    const warnings = logger.entries.filter((e) => e.msg.startsWith('handler met an infrastructure error') && e.fields.messageId === held.id);
    expect(warnings).toHaveLength(1);
    expect((warnings[0]!.fields.err as Error).name).toMatch(/^Mongo(Network|ServerSelection)Error$/);

    mongo = await startMongoDevServer({ port });
    await waitFor('the message handled once MongoDB is back', () => attemptsOf().some((s) => s.outcome === 'ok'), 30_000);
    expect(
      await client
        .db('bus_retries')
        .collection('effects')
        .findOne({ _id: held.id } as never),
    ).toMatchObject({ count: 1 });
    expect(await processed.has(GROUP, held.id)).toBe(true);

    // A message the handler refuses, produced after on the same key: the first dead letter must be it.
    poisoned.add('outage-marker');
    const marker = await bus.publish('bus.test.outage', { key: 'agg', type: 'test.step', id: 'outage-marker', data: { poison: true } });
    await waitFor("the marker's dead letter", () => seenOn('bus.test.outage.dlq').length >= 1, 30_000);
    const letters = seenOn('bus.test.outage.dlq').map((s) => JSON.parse((s.message.data as { value: string }).value) as BusMessage);
    expect(letters.map((l) => l.id)).toEqual([marker.id]);
  }, 90_000);
});

describe('a poison message goes to the dead-letter topic and is not recorded as processed', () => {
  test('a NonRetryableError dead-letters it; its id is not in the processed store, later messages go on', async () => {
    poisoned.add('poison-1');
    const poison = await bus.publish('bus.test.poison', { key: 'k', type: 'test.step', id: 'poison-1', data: { n: 1 } });
    const next = await bus.publish('bus.test.poison', { key: 'k', type: 'test.step', data: { n: 2 } });
    await waitFor('the dead letter', () => seenOn('bus.test.poison.dlq').length === 1, 30_000);
    await waitFor('the next message recorded as processed', () => processed.has(GROUP, next.id), 30_000);
    expect(await processed.has(GROUP, poison.id)).toBe(false);
    expect(seenOn('bus.test.poison.dlq')[0]!.message.data).toMatchObject({
      topic: 'bus.test.poison',
      key: 'k',
      error: { kind: 'handler', name: 'NonRetryableError', consumerGroup: GROUP },
    });
  });

  test('the re-drive (dry run first) republishes it; it is then handled exactly once; a second re-drive finds nothing', async () => {
    poisoned.delete('poison-1');
    const lines: unknown[] = [];
    const session = fastSession;
    const dry = await redriveDeadLetters({ brokers: mock.brokers, topic: 'bus.test.poison', dryRun: true, session, onLine: (line) => lines.push(line) });
    expect(dry).toMatchObject({ dryRun: true, wouldRedrive: 1, redriven: 0, left: 0, groupId: redriveGroupId('bus.test.poison') });
    expect(lines).toEqual([
      expect.objectContaining({ action: 'would-redrive', original: expect.objectContaining({ topic: 'bus.test.poison', key: 'k', messageId: 'poison-1' }) }),
    ]);

    const done = await redriveDeadLetters({ brokers: mock.brokers, topic: 'bus.test.poison', session });
    expect(done).toMatchObject({ redriven: 1, skipped: 0, left: 0 });
    const handled = () => seenOn('bus.test.poison').filter((s) => s.message.id === 'poison-1' && s.outcome === 'ok');
    await waitFor('the re-driven message handled', () => handled().length === 1, 30_000);
    const redelivered = handled()[0]!;
    expect(redelivered.message).toEqual(JSON.parse((seenOn('bus.test.poison.dlq')[0]!.message.data as { value: string }).value));
    await waitFor('the re-driven id recorded as processed', () => processed.has(GROUP, 'poison-1'), 30_000);

    const again = await redriveDeadLetters({ brokers: mock.brokers, topic: 'bus.test.poison', session });
    expect(again).toMatchObject({ redriven: 0, wouldRedrive: 0, skipped: 0, left: 0 });
    // A later message on the same key is handled after anything a second re-drive could have sent.
    const marker = await bus.publish('bus.test.poison', { key: 'k', type: 'test.step', data: { n: 3 } });
    await waitFor('the marker', () => processed.has(GROUP, marker.id), 30_000);
    expect(handled()).toHaveLength(1);
  }, 90_000);
});
