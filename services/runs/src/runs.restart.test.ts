import { randomBytes, randomUUID } from 'node:crypto';
import { createBus, type Bus } from '@ars/bus';
import { requestHash } from '@ars/idempotency';
import { testInfrastructure } from '@ars/testenv';
import { freePort, startCatalogHarness, type CatalogHarness } from '../../catalog/src/testing/catalogHarness.js';
import type { Run, RunEvent } from './domain/runView.js';
import { startRunsProcess, type RunsProcess } from './testing/runsProcess.js';
import { startSandboxesStandIn, type SandboxesStandIn } from './testing/sandboxesStandIn.js';

// runs as its own process (built dist/), SIGKILLed in the middle of a run's event stream, then
// started again: every event is stored exactly once and the run ends as its sandbox reported.
let catalog: CatalogHarness;
let sandboxes: SandboxesStandIn;
let bus: Bus;
let env: Record<string, string>;
let url: string;
let runs: RunsProcess | undefined;

beforeAll(async () => {
  const infra = testInfrastructure();
  catalog = await startCatalogHarness();
  sandboxes = await startSandboxesStandIn(catalog.token);
  bus = createBus({ brokers: infra.kafkaBrokers, clientId: 'runs-restart-test' });
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  env = {
    PORT: String(port),
    LOG_LEVEL: 'info',
    MONGO_URL: infra.mongoUrl,
    MONGO_DB: `runs_restart_${randomBytes(6).toString('hex')}`,
    KAFKA_BROKERS: infra.kafkaBrokers.join(','),
    INTERNAL_TOKEN: catalog.token,
    CATALOG_URL: catalog.url,
    SANDBOXES_URL: sandboxes.url,
    RUNS_CONSUMER_GROUP: `runs-restart-${randomBytes(6).toString('hex')}`,
    RUNS_CONSUMER_SESSION_TIMEOUT_MS: '6000',
  };
  runs = await startRunsProcess(env);
}, 90_000);
afterAll(async () => {
  await runs?.stop();
  await bus?.disconnect();
  await sandboxes?.close();
  await catalog?.stop();
});

async function call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'x-internal-token': catalog.token, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const parsed = (await response.json()) as { ok: boolean; data: T };
  if (!parsed.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(parsed)}`);
  return parsed.data;
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const publishEvent = (runId: string, seq: number) =>
  bus.publish('runs.agent-events', {
    key: runId,
    type: 'run.agent-event',
    id: `${runId}:event:${seq}`,
    data: { runId, seq, eventType: seq === 0 ? 'stream_started' : 'tool_call', toolName: seq === 0 ? null : 'shell', message: `event ${seq}`, payload: { seq }, emittedAt: new Date().toISOString() },
  });

describe('a kill -9 of runs mid-run and a restart neither duplicates events nor loses any', () => {
  test('60 events, runs SIGKILLed after some were stored, the rest sent while it is down; after the restart: 60 events once each, success', async () => {
    const userId = catalog.newUser();
    const repoId = (await catalog.devInstallation(userId)).repos[0]?.id ?? '';
    const body = { repoId, prompt: 'long run' };
    const run = await call<Run>('POST', `/internal/users/${userId}/runs`, body, { 'idempotency-key': randomUUID(), 'x-request-hash': requestHash(body) });
    const runId = run.runId;
    const eventsPath = `/internal/users/${userId}/runs/${runId}/events?limit=200`;
    await bus.publish('runs.sandbox-allocated', {
      key: runId,
      type: 'run.sandbox-allocated',
      id: `${runId}:sandbox-allocated`,
      data: { runId, sandboxRecordId: 'record', sandboxId: null, runtime: { provider: 'local', runId: 'session' } },
    });
    for (let seq = 0; seq < 30; seq += 1) await publishEvent(runId, seq);
    await waitFor('some events stored', async () => (await call<{ events: RunEvent[] }>('GET', eventsPath)).events.length >= 10);

    await runs?.kill();
    for (let seq = 30; seq < 60; seq += 1) await publishEvent(runId, seq);
    // The sandbox re-sends a few it is unsure about (same seq): still stored once.
    for (const seq of [5, 29, 30]) {
      await bus.publish('runs.agent-events', {
        key: runId,
        type: 'run.agent-event',
        id: `${runId}:event:${seq}:resent`,
        data: { runId, seq, eventType: 'tool_call', toolName: 'shell', message: 'resent', payload: {}, emittedAt: new Date().toISOString() },
      });
    }
    await bus.publish('runs.finished', { key: runId, type: 'run.finished', id: `${runId}:finished`, data: { runId, status: 'success', error: null, failure: null, eventCount: 60 } });

    runs = await startRunsProcess(env);
    const final = await waitFor('all 60 events and success', async () => {
      const answer = await call<{ run: Run; events: RunEvent[] }>('GET', eventsPath);
      return answer.events.length === 60 && answer.run.status === 'success' ? answer : undefined;
    });
    expect(final.events.map((e) => e.id)).toEqual(Array.from({ length: 60 }, (_, seq) => `${runId}:event:${seq}`));
    expect(final.events.filter((e) => e.message === 'resent')).toEqual([]);
    expect(final.run).toMatchObject({ status: 'success', sandboxRecordId: 'record', error: null });
  }, 120_000);
});
