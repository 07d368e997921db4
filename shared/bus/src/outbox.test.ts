// The outbox across process deaths: mongo-dev in-process, the mock cluster, relay and writer as
// child processes that are SIGKILLed at the worst moments.
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { MongoClient, type Db } from 'mongodb';
import { startMongoDevServer, type MongoDevServer } from '@ars/mongo-dev';
import { startIsolatedKafka, waitFor, type KafkaMock } from '@ars/testenv';
import { createBus, mongoProcessedStore, outboxInsert, outboxPush, startOutboxRelay, withOutbox, type Bus, type BusMessage, type WithOutbox } from './index.js';
import { fastSession, killFixtures, startFixture } from './testing/helpers.js';

const TOPIC = 'bus.test.outbox';
const DB = 'bus_outbox_test';
let mock: KafkaMock;
let mongo: MongoDevServer;
let client: MongoClient;
let db: Db;
let bus: Bus;
/** Handler calls of the idempotent consumer, and raw deliveries seen by a group without a store. */
const handled: BusMessage[] = [];
const delivered: BusMessage[] = [];

beforeAll(async () => {
  [mock, mongo] = await Promise.all([
    startIsolatedKafka({
      brokers: 3,
      topics: [
        { name: TOPIC, partitions: 4 },
        { name: `${TOPIC}.dlq`, partitions: 1 },
      ],
    }),
    startMongoDevServer({}),
  ]);
  client = await MongoClient.connect(mongo.url);
  db = client.db(DB);
  bus = createBus({ brokers: mock.brokers, clientId: 'outbox-test', fetchMaxWaitMs: 100 });
  const processed = mongoProcessedStore(db);
  await processed.ensureIndexes();
  await bus.consume({ groupId: 'outbox-idempotent', topics: [TOPIC], session: fastSession, processed, handle: async (m) => void handled.push(m) });
  await bus.consume({ groupId: 'outbox-audit', topics: [TOPIC], session: fastSession, handle: async (m) => void delivered.push(m) });
});

afterEach(killFixtures);

afterAll(async () => {
  await killFixtures();
  await bus?.disconnect();
  await client?.close();
  await Promise.all([mock?.close(), mongo?.close()]);
});

const things = () => db.collection<WithOutbox & { _id: string; status: string }>('things');
const relayEnv = () => ({ BROKERS: mock.brokers.join(','), MONGO_URL: mongo.url, MONGO_DB: DB });

describe('an outboxed state change and its message cannot part', () => {
  test('the outbox helpers write the message inside the same document write, validated first', async () => {
    await things().insertOne(outboxInsert({ _id: 'h1', status: 'pending' }, [{ topic: TOPIC, key: 'h1', type: 'test.created', data: {} }]));
    await things().updateOne({ _id: 'h1' }, { $set: { status: 'done' }, ...outboxPush([{ topic: TOPIC, key: 'h1', type: 'test.done', data: {} }]) });
    await things().updateOne({ _id: 'h1' }, withOutbox({ $set: { status: 'closed' } }, [{ topic: TOPIC, key: 'h1', type: 'test.closed', data: {} }]));
    const doc = await things().findOne({ _id: 'h1' });
    expect(doc?.status).toBe('closed');
    expect(doc?._outbox?.map((e) => e.type)).toEqual(['test.created', 'test.done', 'test.closed']);
    expect(() => outboxPush([{ topic: 'runs.finished', key: 'h1', type: 'run.finished', data: { runId: 'h1' } }])).toThrow(/runs\.finished.*\/data/);
    await things().deleteOne({ _id: 'h1' });
  });

  test('killed between the write and the relay: a later relay publishes it, consumed exactly once', async () => {
    const writer = startFixture('outbox-writer.mjs', { MONGO_URL: mongo.url, MONGO_DB: DB, DOC_ID: 'w1', TOPIC });
    const { messageId } = (await writer.waitFor((l) => l.event === 'written', 30_000, 'the write')) as { messageId: string };
    await writer.kill();
    const doc = await things().findOne({ _id: 'w1' });
    expect(doc?.status).toBe('pending');
    expect(doc?._outbox?.map((e) => e.id)).toEqual([messageId]);

    const relay = startFixture('outbox-relay.mjs', relayEnv());
    await waitFor('the relayed message', () => handled.some((m) => m.id === messageId), 30_000);
    await waitFor('the entry to be pulled', async () => ((await things().findOne({ _id: 'w1' }))?._outbox?.length === 0 ? true : undefined), 30_000);
    await relay.stop();
    expect(handled.filter((m) => m.id === messageId)).toHaveLength(1);
    expect(handled.find((m) => m.id === messageId)).toMatchObject({ type: 'test.created', data: { docId: 'w1' } });
  });

  test('the relay published but died before $pull: republished with the same id, consumed exactly once', async () => {
    const writer = startFixture('outbox-writer.mjs', { MONGO_URL: mongo.url, MONGO_DB: DB, DOC_ID: 'w2', TOPIC });
    const { messageId } = (await writer.waitFor((l) => l.event === 'written', 30_000, 'the write')) as { messageId: string };
    await writer.kill();

    const crashing = startFixture('outbox-relay.mjs', { ...relayEnv(), CRASH_BEFORE_PULL: '1' });
    await crashing.waitFor((l) => l.event === 'published' && (l.ids as string[]).includes(messageId), 30_000, 'the first publish');
    await crashing.kill();
    expect((await things().findOne({ _id: 'w2' }))?._outbox?.map((e) => e.id)).toEqual([messageId]);

    const relay = startFixture('outbox-relay.mjs', relayEnv());
    await waitFor('the second delivery of the same id', () => delivered.filter((m) => m.id === messageId).length === 2, 30_000);
    await waitFor('the entry to be pulled', async () => ((await things().findOne({ _id: 'w2' }))?._outbox?.length === 0 ? true : undefined), 30_000);
    await relay.stop();
    // The idempotent group saw the same id twice on the topic and handled it once.
    await waitFor('the handled message', () => handled.some((m) => m.id === messageId), 30_000);
    expect(handled.filter((m) => m.id === messageId)).toHaveLength(1);
  });

  test('kick() relays right after a local write, without waiting for the poll interval', async () => {
    const relay = startOutboxRelay({ db, collections: ['things'], bus, pollIntervalMs: 600_000 });
    try {
      await relay.runOnce(); // the start-up pass is over; the next poll is ten minutes away
      const doc = outboxInsert({ _id: 'k1', status: 'pending' }, [{ topic: TOPIC, key: 'k1', type: 'test.created', data: {} }]);
      await things().insertOne(doc);
      relay.kick();
      await waitFor('the kicked message', () => handled.some((m) => m.id === doc._outbox[0]!.id), 30_000);
    } finally {
      await relay.stop();
    }
  });
});
