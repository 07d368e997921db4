// Consumer groups across processes, through the real broker (librdkafka's mock cluster over TCP).
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { MongoClient } from 'mongodb';
import { startMongoDevServer, type MongoDevServer } from '@ars/mongo-dev';
import { startIsolatedKafka, waitFor, type KafkaMock } from '@ars/testenv';
import { createBus, type Bus } from './index.js';
import { killFixtures, startFixture, type Line } from './testing/helpers.js';

let mock: KafkaMock;
let mongo: MongoDevServer;
let client: MongoClient;
let bus: Bus;

beforeAll(async () => {
  [mock, mongo] = await Promise.all([
    startIsolatedKafka({
      brokers: 3,
      topics: [
        { name: 'bus.test.groups', partitions: 6 },
        { name: 'bus.test.groups.dlq', partitions: 1 },
        { name: 'bus.test.crash', partitions: 1 },
        { name: 'bus.test.crash.dlq', partitions: 1 },
      ],
    }),
    startMongoDevServer({}),
  ]);
  client = await MongoClient.connect(mongo.url);
  bus = createBus({ brokers: mock.brokers, clientId: 'groups-test', fetchMaxWaitMs: 100 });
  await bus.connect();
});

afterEach(killFixtures);

afterAll(async () => {
  await killFixtures();
  await bus?.disconnect();
  await client?.close();
  await Promise.all([mock?.close(), mongo?.close()]);
});

const handled = (lines: Line[]) => lines.filter((l) => l.event === 'handled');
const lastAssignment = (lines: Line[]): number[] | undefined => {
  const joined = lines.filter((l) => l.event === 'joined');
  const last = joined[joined.length - 1] as { assignment?: Record<string, number[]> } | undefined;
  return last?.assignment?.['bus.test.groups'];
};

describe('two consumer processes in one group share the partitions of a topic; one key stays in order', () => {
  test('both members get partitions and messages, and each key is handled in publish order by one member', async () => {
    const env = { BROKERS: mock.brokers.join(','), TOPIC: 'bus.test.groups', GROUP: 'groups-share' };
    const a = startFixture('consumer.mjs', env);
    const b = startFixture('consumer.mjs', env);
    // Wait for a stable split: both members hold partitions, disjoint, covering all six.
    await waitFor(
      'both members to share the six partitions',
      () => {
        const pa = lastAssignment(a.lines) ?? [];
        const pb = lastAssignment(b.lines) ?? [];
        return pa.length > 0 && pb.length > 0 && new Set([...pa, ...pb]).size === 6 && pa.length + pb.length === 6;
      },
      40_000,
    ).catch((error: unknown) => {
      console.error(JSON.stringify(a.lines), JSON.stringify(b.lines), a.child.exitCode, b.child.exitCode);
      throw error;
    });

    const keys = Array.from({ length: 12 }, (_, i) => `run-${i}`);
    for (let seq = 0; seq < 5; seq++) {
      for (const key of keys) await bus.publish('bus.test.groups', { key, type: 'test.step', data: { seq } });
    }
    await waitFor('all 60 messages handled', () => handled(a.lines).length + handled(b.lines).length >= 60, 30_000);

    expect(handled(a.lines).length).toBeGreaterThan(0);
    expect(handled(b.lines).length).toBeGreaterThan(0);
    expect(handled(a.lines).length + handled(b.lines).length).toBe(60);
    for (const key of keys) {
      const inA = handled(a.lines).filter((l) => l.key === key);
      const inB = handled(b.lines).filter((l) => l.key === key);
      const seqs = (inA.length > 0 ? inA : inB).map((l) => l.seq);
      expect(inA.length === 0 || inB.length === 0).toBe(true);
      expect(seqs).toEqual([0, 1, 2, 3, 4]);
    }
  });
});

describe('a consumer killed mid-batch: the redelivery is absorbed by idempotent handling', () => {
  test('after SIGKILL the next member gets the uncommitted messages again and every effect happens once', async () => {
    const dbName = 'bus_crash_test';
    const env = { BROKERS: mock.brokers.join(','), TOPIC: 'bus.test.crash', GROUP: 'groups-crash', MONGO_URL: mongo.url, MONGO_DB: dbName };
    for (let seq = 0; seq < 10; seq++) await bus.publish('bus.test.crash', { key: 'aggregate-1', type: 'test.step', data: { seq } });

    // First member: commits rarely (so nothing is committed yet) and hangs after the effect of seq 6.
    const first = startFixture('consumer.mjs', { ...env, COMMIT_EVERY: '1000', BLOCK_AT_SEQ: '6' });
    await first.waitFor((l) => l.event === 'blocking', 40_000, 'the handler of seq 6 to block');
    await first.kill();
    expect(handled(first.lines).map((l) => l.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);

    const second = startFixture('consumer.mjs', env);
    await waitFor('the second member to reach seq 9', () => handled(second.lines).some((l) => l.seq === 9), 40_000);

    // Redelivered: seq 0..5 were recorded as processed and are skipped; seq 6 died before it was
    // recorded, so its handler ran again and its own idempotency (insert by message id) held.
    const skipped = second.lines.filter((l) => l.event === 'skipped');
    expect(skipped).toHaveLength(6);
    expect(handled(second.lines).map((l) => l.seq)).toEqual([6, 7, 8, 9]);
    const db = client.db(dbName);
    const effects = await db.collection<{ seq: number }>('effects').find().toArray();
    expect(effects.map((e) => e.seq).sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const deliveries = await db
      .collection<{ _id: string; count: number }>('deliveries')
      .find({ count: { $gt: 1 } })
      .toArray();
    expect(deliveries).toHaveLength(1);
    await second.stop();
  });
});
