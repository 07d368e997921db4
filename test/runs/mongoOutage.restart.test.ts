// MongoDB stopped for 30 s in the middle of a run and started again (same port, same data): nothing
// is lost on the bus. The events the agent emits meanwhile wait in Kafka (their partitions held,
// nothing dead-lettered) and are stored once MongoDB is back; the run ends `success` with every
// event exactly once. Whole stack, through HTTP; the stack's own MongoDB keeps its data on disk.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { redriveDeadLetters, type BaseTopicName } from '@ars/bus';
import { startStack, type Stack } from '@ars/stack';
import { testInfrastructure } from '@ars/testenv';
import { newRunsUser, type RunEvent } from '../support/runs.js';

const OUTAGE_MS = 30_000;
let stack: Stack;
const dirs: string[] = [];

beforeAll(async () => {
  const temporary = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  stack = await startStack({
    gatewayPort: 0,
    redisUrl: testInfrastructure().redisUrl,
    mongoDbpath: temporary('ars-outage-mongo-'),
    sourceHostDir: temporary('ars-outage-source-host-'),
    logLevel: 'warn',
    output: () => undefined,
    env: { INTERNAL_TOKEN: randomBytes(24).toString('base64url'), ARS_ENV: 'development', HARNESS_CLIS: 'stand-in' },
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** Dead letters waiting on each of the runs' topics (read up to their end; nothing committed). */
async function deadLetters(): Promise<Record<string, number>> {
  const topics: BaseTopicName[] = ['runs.requested', 'runs.sandbox-allocated', 'runs.agent-events', 'runs.finished'];
  const counts: Record<string, number> = {};
  for (const topic of topics) {
    const summary = await redriveDeadLetters({ brokers: stack.infrastructure.kafkaBrokers, topic, dryRun: true });
    counts[topic] = summary.left + summary.wouldRedrive + summary.skipped;
  }
  return counts;
}

describe('MongoDB stopped for 30 s mid-run and restarted: the run ends success with every event exactly once', () => {
  test('events emitted during the outage are stored once after it; none dead-lettered, none duplicated, none missing', async () => {
    const mongo = stack.infrastructure.local.mongo;
    if (!mongo) throw new Error('this test needs the stack to run its own MongoDB');
    const { runs, repoId } = await newRunsUser(stack.baseUrl);
    // `one` before the outage; `two`, `three` (a tool call) and `four` during it; `five` after it.
    const prompt = ['@say one', '@sleep 5000', '@say two', '@shell echo three', '@sleep 5000', '@say four', `@sleep ${OUTAGE_MS + 5_000}`, '@say five'].join(
      '\n',
    );
    const run = await runs.started({ repoId, prompt });
    await runs.waitFor(run.runId, (_run, events) => events.some((e) => e.message === 'one'), 60_000);

    await mongo.stop();
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS)); // the outage itself
    await mongo.start();

    const { run: done, events } = await runs.waitFor(run.runId, undefined, 180_000);
    expect(done).toMatchObject({ status: 'success' });
    expect(done.error).toBeNull();
    expect(events[0]?.type).toBe('stream_started');
    expect(events.filter((e) => e.type === 'assistant_message').map((e) => e.message)).toEqual(['one', 'two', 'four', 'five']);
    expect(events.filter((e) => e.type === 'tool_call')).toHaveLength(1);
    expectEachEventOnce(events);
    expect(await deadLetters()).toEqual({ 'runs.requested': 0, 'runs.sandbox-allocated': 0, 'runs.agent-events': 0, 'runs.finished': 0 });
  }, 360_000);
});

/** No two events with the same id (the run's seq) or the same content, in the order they were stored. */
function expectEachEventOnce(events: RunEvent[]): void {
  expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  const signatures = events.map((e) => `${e.type}|${e.toolName ?? ''}|${e.message ?? ''}|${JSON.stringify(e.payload)}`);
  expect(new Set(signatures).size).toBe(signatures.length);
}
