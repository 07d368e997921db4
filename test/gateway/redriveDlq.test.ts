// `npm run --silent admin -- redrive-dlq <topic> ...` from the repository root, exactly as an operator
// calls it, against a real broker (librdkafka's mock over TCP) with a consumer group that dead-letters.
import { createBus, memoryProcessedStore, NonRetryableError, type Bus, type BusMessage } from '@ars/bus';
import { startKafkaMock, type KafkaMock } from '@ars/kafka-mock';
import { admin } from '../support/admin.js';

const TOPIC = 'bus.test.cli';
const GROUP = 'cli-consumers';

async function waitUntil(probe: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let mock: KafkaMock;
let bus: Bus;
const refused = new Set<string>();
const handled: BusMessage[] = [];
const deadLetters: BusMessage[] = [];
const processed = memoryProcessedStore();

beforeAll(async () => {
  mock = await startKafkaMock({
    brokers: 1,
    topics: [
      { name: TOPIC, partitions: 2 },
      { name: `${TOPIC}.dlq`, partitions: 1 },
    ],
  });
  bus = createBus({ brokers: mock.brokers, clientId: 'cli-test', fetchMaxWaitMs: 100 });
  await bus.consume({
    groupId: GROUP,
    topics: [TOPIC, `${TOPIC}.dlq`],
    processed,
    session: { sessionTimeoutMs: 6_000, rebalanceTimeoutMs: 1_500, heartbeatIntervalMs: 300 },
    handle: async (message, context) => {
      if (context.topic.endsWith('.dlq')) {
        deadLetters.push(message);
        return;
      }
      if (refused.has(message.id)) throw new NonRetryableError('not yet');
      handled.push(message);
    },
  });
}, 60_000);

afterAll(async () => {
  await bus?.disconnect();
  await mock?.close();
});

describe('redrive-dlq puts the dead letters of a topic back on it, one line each and a summary', () => {
  test('--dry-run lists, the real run republishes (then handled once), a second run finds nothing', async () => {
    refused.add('cli-poison');
    await bus.publish(TOPIC, { key: 'k', type: 'test.step', id: 'cli-poison', data: { n: 1 } });
    await waitUntil(() => deadLetters.length === 1, 'the dead letter');
    refused.delete('cli-poison');
    const env = { KAFKA_BROKERS: mock.brokers.join(',') };

    const dry = await admin(['redrive-dlq', TOPIC, '--dry-run', '--json'], env);
    expect(dry.code).toBe(0);
    const dryLines = dry.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(dryLines).toEqual([
      expect.objectContaining({ action: 'would-redrive', original: expect.objectContaining({ topic: TOPIC, key: 'k', messageId: 'cli-poison' }) }),
      { summary: expect.objectContaining({ dryRun: true, wouldRedrive: 1, redriven: 0, left: 0 }) },
    ]);

    const real = await admin(['redrive-dlq', `${TOPIC}.dlq`, '--group', GROUP], env);
    expect(real.code).toBe(0);
    expect(real.stdout).toMatch(/^redriven bus\.test\.cli\.dlq\[0\]@0 bus\.test\.cli\[\d\]@0 key=k id=cli-poison \(handler in cli-consumers: not yet\)\n/);
    expect(real.stdout).toMatch(/1 re-driven, 0 skipped, 0 left \(group bus-redrive\.bus\.test\.cli\.cli-consumers\)\n$/);
    await waitUntil(() => handled.some((m) => m.id === 'cli-poison'), 'the re-driven message handled');

    const again = await admin(['redrive-dlq', TOPIC, '--group', GROUP, '--json'], env);
    expect(JSON.parse(again.stdout.trim())).toEqual({ summary: expect.objectContaining({ redriven: 0, left: 0 }) });
    // A message produced after, on the same key: handled after anything a second re-drive could have sent.
    await bus.publish(TOPIC, { key: 'k', type: 'test.step', id: 'cli-marker', data: { n: 2 } });
    await waitUntil(() => handled.some((m) => m.id === 'cli-marker'), 'the marker');
    expect(handled.filter((m) => m.id === 'cli-poison')).toHaveLength(1);
  }, 240_000); // three `npm run admin` processes, each joining a consumer group

  test('wrong arguments and no brokers: exit 1 with one line saying why', async () => {
    const unknown = await admin(['redrive-dlq', 'no.such.topic'], { KAFKA_BROKERS: mock.brokers.join(',') });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^redrive-dlq: unknown topic no\.such\.topic\n/);
    const limit = await admin(['redrive-dlq', TOPIC, '--limit', '0'], { KAFKA_BROKERS: mock.brokers.join(',') });
    expect(limit.stderr).toMatch(/^redrive-dlq: --limit must be a positive integer\n/);
    const noBrokers = await admin(['redrive-dlq', TOPIC], { KAFKA_BROKERS: '', STACK_STATE_DIR: 'no-such-stack-dir' });
    expect(noBrokers.code).toBe(1);
    expect(noBrokers.stderr).toBe('redrive-dlq: no Kafka brokers: set KAFKA_BROKERS (host:port,...) or start the stack with npm start\n');
  }, 120_000);
});
