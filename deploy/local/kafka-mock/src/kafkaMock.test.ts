// The helper itself: a real Kafka-protocol cluster that kafkajs talks to over TCP, fault commands.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { Kafka, logLevel } from 'kafkajs';
import { DEFAULT_INITIAL_REBALANCE_DELAY_MS, ensureKafkaMockBuilt, kafkaMockArgs, kafkaMockBinary, startKafkaMock, type KafkaMock } from './index.js';

let mock: KafkaMock;
let kafka: Kafka;

beforeAll(async () => {
  mock = await startKafkaMock({
    brokers: 3,
    topics: [
      { name: 'twelve', partitions: 12 },
      { name: 'faults', partitions: 1 },
    ],
  });
  kafka = new Kafka({ brokers: mock.brokers, clientId: 'kafka-mock-test', logLevel: logLevel.NOTHING });
});

afterAll(async () => {
  await mock?.close();
});

describe('startKafkaMock: N brokers with ids 1..N and the topics pre-created with their partition counts', () => {
  test('kafkajs sees three brokers 1, 2, 3 and twelve partitions', async () => {
    expect(mock.brokers).toHaveLength(3);
    for (const broker of mock.brokers) expect(broker).toMatch(/^127\.0\.0\.1:\d+$/);
    const admin = kafka.admin();
    await admin.connect();
    try {
      const cluster = await admin.describeCluster();
      expect(cluster.brokers.map((b) => b.nodeId).sort()).toEqual([1, 2, 3]);
      const { topics } = await admin.fetchTopicMetadata({ topics: ['twelve'] });
      expect(topics[0]?.partitions).toHaveLength(12);
    } finally {
      await admin.disconnect();
    }
  });
});

describe('fault injection commands answer ok, or an error naming the problem', () => {
  test('broker-down and broker-up of an existing broker; an unknown broker id is refused', async () => {
    await mock.brokerDown(3);
    await mock.brokerUp(3);
    await expect(mock.brokerDown(9)).rejects.toThrow(/broker-down 9/);
    await mock.setLatency(1, 5);
    await mock.setLatency(1, 0);
  });
  test('request-errors makes the next requests of an API key fail with that error code', async () => {
    const producer = kafka.producer({ retry: { retries: 0 }, allowAutoTopicCreation: false });
    await producer.connect();
    try {
      await producer.send({ topic: 'faults', messages: [{ value: 'warm-up' }] });
      await mock.pushRequestErrors(0 /* Produce */, 10 /* MESSAGE_TOO_LARGE */, 1);
      await expect(producer.send({ topic: 'faults', messages: [{ value: 'refused' }] })).rejects.toMatchObject({ type: 'MESSAGE_TOO_LARGE' });
      await producer.send({ topic: 'faults', messages: [{ value: 'accepted again' }] });
    } finally {
      await producer.disconnect();
    }
  });
});

describe('build.sh compiles bin/kafka-mock with gcc and librdkafka, only when the source is newer', () => {
  test('a second build of an up-to-date binary does nothing', () => {
    ensureKafkaMockBuilt();
    const before = statSync(kafkaMockBinary).mtimeMs;
    const again = spawnSync('bash', [join(dirname(kafkaMockBinary), '..', 'build.sh')], { encoding: 'utf8' });
    expect(again.status).toBe(0);
    expect(again.stderr).toBe('');
    expect(statSync(kafkaMockBinary).mtimeMs).toBe(before);
  });
});

/** Milliseconds from a new group's consumer starting to its first GROUP_JOIN. */
async function firstJoinMs(cluster: KafkaMock, groupId: string): Promise<number> {
  const consumer = new Kafka({ brokers: cluster.brokers, clientId: 'join-test', logLevel: logLevel.NOTHING }).consumer({ groupId, maxWaitTimeInMs: 100 });
  try {
    await consumer.connect();
    await consumer.subscribe({ topic: 'joins' });
    const joined = new Promise((resolve) => consumer.on(consumer.events.GROUP_JOIN, resolve));
    const start = Date.now();
    await consumer.run({ eachMessage: async () => undefined });
    await joined;
    return Date.now() - start;
  } finally {
    await consumer.disconnect();
  }
}

describe("a new consumer group's first join waits the initial rebalance delay asked for (the broker's group.initial.rebalance.delay.ms)", () => {
  test('with 1,500 ms the first join waits at least that; with 0 it is answered at once', async () => {
    const slow = await startKafkaMock({ brokers: 1, topics: [{ name: 'joins', partitions: 2 }], initialRebalanceDelayMs: 1_500 });
    const fast = await startKafkaMock({ brokers: 1, topics: [{ name: 'joins', partitions: 2 }], initialRebalanceDelayMs: 0 });
    try {
      const [slowJoin, fastJoin] = await Promise.all([firstJoinMs(slow, 'slow-group'), firstJoinMs(fast, 'fast-group')]);
      expect(slowJoin).toBeGreaterThanOrEqual(1_450);
      expect(fastJoin).toBeLessThan(1_000);
    } finally {
      await Promise.all([slow.close(), fast.close()]);
    }
  });

  test('a delay out of 0..300000 is refused before anything starts', () => {
    expect(() => kafkaMockArgs({ topics: [], initialRebalanceDelayMs: -1 })).toThrow('initialRebalanceDelayMs must be 0..300000, got -1');
    expect(kafkaMockArgs({ topics: [] })).toEqual(['--brokers', '3', '--initial-rebalance-delay-ms', String(DEFAULT_INITIAL_REBALANCE_DELAY_MS)]);
  });
});

describe('a group whose last member left is empty at once, as on a Kafka broker: the next member waits only the first-join delay', () => {
  test('a member joins, leaves (LeaveGroup), and the next one joins in well under the 30 s session timeout the mock would wait', async () => {
    const cluster = await startKafkaMock({ brokers: 1, topics: [{ name: 'joins', partitions: 2 }], initialRebalanceDelayMs: 0 });
    try {
      expect(await firstJoinMs(cluster, 'restarted-service')).toBeLessThan(10_000);
      // The librdkafka mock alone answered this join after 29 s (the session timeout less 1 s).
      expect(await firstJoinMs(cluster, 'restarted-service')).toBeLessThan(10_000);
    } finally {
      await cluster.close();
    }
  }, 60_000);
});

describe('a fetch waiting for data is answered as soon as a message reaches a partition it reads, as on a Kafka broker', () => {
  /** A consumer of `waiting` with a long fetch wait, joined and idle; its fetches' durations as kafkajs reports them. */
  async function idleConsumer(cluster: KafkaMock, groupId: string, maxWaitTimeInMs: number) {
    const consumer = new Kafka({ brokers: cluster.brokers, clientId: 'fetch-test', logLevel: logLevel.NOTHING }).consumer({ groupId, maxWaitTimeInMs });
    const received: number[] = [];
    const fetchDurations: number[] = [];
    consumer.on(consumer.events.FETCH, (event) => fetchDurations.push(event.payload.duration));
    await consumer.connect();
    await consumer.subscribe({ topic: 'waiting', fromBeginning: true });
    const joined = new Promise((resolve) => consumer.on(consumer.events.GROUP_JOIN, resolve));
    await consumer.run({ eachMessage: async () => void received.push(Date.now()) });
    await joined;
    // The first fetches answer at once (the offsets are found); from here each one waits.
    await new Promise((resolve) => setTimeout(resolve, 500));
    return { consumer, received, fetchDurations };
  }

  test('a message produced while the fetch waits reaches the consumer long before the fetch wait ends', async () => {
    const maxWaitTimeInMs = 10_000;
    const cluster = await startKafkaMock({ brokers: 1, topics: [{ name: 'waiting', partitions: 2 }], initialRebalanceDelayMs: 0 });
    const producer = new Kafka({ brokers: cluster.brokers, clientId: 'fetch-test', logLevel: logLevel.NOTHING }).producer();
    const { consumer, received } = await idleConsumer(cluster, 'answered-on-arrival', maxWaitTimeInMs);
    try {
      await producer.connect();
      const sentAt = Date.now();
      await producer.send({ topic: 'waiting', messages: [{ key: 'one', value: 'arrives' }] });
      while (received.length === 0 && Date.now() - sentAt < maxWaitTimeInMs) await new Promise((resolve) => setTimeout(resolve, 20));
      // librdkafka's mock alone answered after the whole 10 s wait.
      expect(received[0]! - sentAt).toBeLessThan(maxWaitTimeInMs / 2);
    } finally {
      await Promise.all([consumer.disconnect(), producer.disconnect()]);
      await cluster.close();
    }
  }, 30_000);

  test('a message on a partition the fetch does not read leaves it waiting its whole wait', async () => {
    const maxWaitTimeInMs = 3_000;
    const cluster = await startKafkaMock({
      brokers: 1,
      topics: [
        { name: 'waiting', partitions: 2 },
        { name: 'elsewhere', partitions: 1 },
      ],
      initialRebalanceDelayMs: 0,
    });
    const producer = new Kafka({ brokers: cluster.brokers, clientId: 'fetch-test', logLevel: logLevel.NOTHING }).producer();
    const { consumer, fetchDurations } = await idleConsumer(cluster, 'not-woken', maxWaitTimeInMs);
    try {
      await producer.connect();
      fetchDurations.length = 0;
      await producer.send({ topic: 'elsewhere', messages: [{ value: 'not for the waiting consumer' }] });
      while (fetchDurations.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      // The fetch in flight when the message was produced: answered only when its wait ran out.
      expect(fetchDurations[0]).toBeGreaterThanOrEqual(maxWaitTimeInMs / 2);
    } finally {
      await Promise.all([consumer.disconnect(), producer.disconnect()]);
      await cluster.close();
    }
  }, 30_000);
});

describe('close destroys the cluster and the process exits', () => {
  test('close is idempotent and the brokers stop listening', async () => {
    const own = await startKafkaMock({ brokers: 1, topics: [] });
    await own.close();
    await own.close();
    await expect(own.brokerDown(1)).rejects.toThrow(/not running/);
  });
});

describe('the CLI pre-creates the @ars/bus topic catalog, prints the bootstrap line and forwards commands', () => {
  const main = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.js');
  test.each([[1]])('npm run kafka-mock -- --brokers %i', async (brokers) => {
    if (!existsSync(main)) throw new Error('deploy/local/kafka-mock/dist is missing: run `npx tsc -b tsconfig.build.json` first');
    const child = spawn(process.execPath, [main, '--brokers', String(brokers)], { stdio: ['pipe', 'pipe', 'inherit'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      const first = JSON.parse(String((await lines.next()).value)) as { bootstrap: string };
      const cli = new Kafka({ brokers: first.bootstrap.split(','), clientId: 'cli-test', logLevel: logLevel.NOTHING });
      const admin = cli.admin();
      await admin.connect();
      const { topics } = await admin.fetchTopicMetadata({ topics: ['runs.requested', 'runs.requested.dlq', 'runs.agent-events'] });
      await admin.disconnect();
      expect(Object.fromEntries(topics.map((t) => [t.name, t.partitions.length]))).toEqual({
        'runs.requested': 12,
        'runs.requested.dlq': 1,
        'runs.agent-events': 12,
      });
      child.stdin.write('broker-down 1\nbogus\n');
      expect(JSON.parse(String((await lines.next()).value))).toEqual({ ok: true });
      expect(JSON.parse(String((await lines.next()).value))).toEqual({ ok: false, error: 'unknown command: bogus' });
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
