// Fault injection on a private mock cluster: a broker goes down and comes back.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startIsolatedKafka, waitFor, type KafkaMock } from '@ars/testenv';
import { createBus, type Bus } from './index.js';
import { fastSession, memoryLogger } from './testing/helpers.js';

let mock: KafkaMock;
let bus: Bus;
const logger = memoryLogger();

beforeAll(async () => {
  mock = await startIsolatedKafka({
    brokers: 3,
    topics: [
      { name: 'bus.test.faults', partitions: 6 },
      { name: 'bus.test.faults.dlq', partitions: 1 },
    ],
  });
  bus = createBus({
    brokers: mock.brokers,
    clientId: 'faults-test',
    logger,
    fetchMaxWaitMs: 100,
    retry: { retries: 12, initialRetryTime: 200, maxRetryTime: 2_000 },
  });
  await bus.connect();
});

afterAll(async () => {
  await bus?.disconnect();
  await mock?.close();
});

describe('a broker taken down by fault injection and brought back loses no message', () => {
  test('every message published around the outage is consumed, in order per key', async () => {
    const seen: { key: string | null; seq: number }[] = [];
    await bus.consume({
      groupId: 'faults',
      topics: ['bus.test.faults'],
      session: fastSession,
      handle: async (message, ctx) => {
        seen.push({ key: ctx.key, seq: (message.data as { seq: number }).seq });
      },
    });
    const keys = ['a', 'b', 'c', 'd', 'e', 'f'];
    let up: Promise<void> | undefined;
    for (let seq = 0; seq < 10; seq++) {
      if (seq === 3) {
        await mock.brokerDown(2);
        // Back up two seconds later, while publishes to its partitions are retrying.
        up = new Promise((resolve) => setTimeout(resolve, 2_000)).then(() => mock.brokerUp(2));
      }
      await Promise.all(keys.map((key) => bus.publish('bus.test.faults', { key, type: 'test.step', data: { seq } })));
    }
    await up;
    await waitFor('all 60 messages', () => seen.length >= 60, 60_000);
    for (const key of keys) {
      const seqs = seen.filter((s) => s.key === key).map((s) => s.seq);
      // At-least-once: a retried send may be duplicated, never lost or reordered past a later one.
      expect([...new Set(seqs)]).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    }
  });
});

describe('a consumer that kafkajs gives up on (a fatal protocol error) is replaced, not left dead', () => {
  test('SyncGroup answered INVALID_REQUEST: a new member joins and the messages are handled', async () => {
    await mock.pushRequestErrors(14 /* SyncGroup */, 42 /* INVALID_REQUEST */, 1);
    const seen: number[] = [];
    const replaced = await bus.consume({
      groupId: 'faults-relaunch',
      topics: ['bus.test.faults'],
      session: fastSession,
      // From the beginning: the replacement may be running before it is assigned its partitions, and a
      // new group reading from the latest offset would then start after the message sent below.
      fromBeginning: true,
      handle: async (message) => {
        seen.push((message.data as { seq: number }).seq);
      },
    });
    await waitFor('the crash', () => logger.entries.some((e) => e.msg === 'consumer crashed' && e.fields.groupId === 'faults-relaunch'), 30_000);
    await waitFor('the replacement to run', () => replaced.isRunning(), 30_000);
    await bus.publish('bus.test.faults', { key: 'z', type: 'test.step', data: { seq: 100 } });
    await waitFor('the message after the crash', () => seen.includes(100), 30_000);
  });
});
