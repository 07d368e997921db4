import { randomBytes, randomUUID } from 'node:crypto';
import { createBus, type Bus } from '@ars/bus';
import { requestHash } from '@ars/idempotency';
import { startCatalogHarness, type CatalogHarness } from '@ars/catalog/testing';
import { freePort, internalCaller, testInfrastructure, waitFor, type InternalCall } from '@ars/testenv';
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
let call: InternalCall;
let runs: RunsProcess | undefined;

beforeAll(async () => {
  const infra = testInfrastructure();
  catalog = await startCatalogHarness();
  sandboxes = await startSandboxesStandIn(catalog.token);
  bus = createBus({ brokers: infra.kafkaBrokers, clientId: 'runs-restart-test' });
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  call = internalCaller({ url, token: catalog.token, caller: 'runs-restart-test' });
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

// Asked while runs is down too: a refused connection is "not yet".
const untilRuns = { timeoutMs: 45_000, intervalMs: 100, ignoreErrors: true };

const publishEvent = (runId: string, seq: number) =>
  bus.publish('runs.agent-events', {
    key: runId,
    type: 'run.agent-event',
    id: `${runId}:event:${seq}`,
    data: {
      runId,
      seq,
      eventType: seq === 0 ? 'stream_started' : 'tool_call',
      toolName: seq === 0 ? null : 'shell',
      message: `event ${seq}`,
      payload: { seq },
      emittedAt: new Date().toISOString(),
    },
  });

describe('a kill -9 of runs mid-run and a restart neither duplicates events nor loses any', () => {
  test('60 events, runs SIGKILLed after some were stored, the rest sent while it is down; after the restart: 60 events once each, success', async () => {
    const userId = catalog.newUser();
    const repoId = (await catalog.devInstallation(userId)).repos[0]?.id ?? '';
    const body = { repoId, prompt: 'long run' };
    const run = (
      await call<Run>('POST', `/internal/users/${userId}/runs`, body, {
        'x-internal-token': catalog.token,
        'idempotency-key': randomUUID(),
        'x-request-hash': requestHash(body),
      })
    ).data;
    const runId = run.runId;
    const eventsPath = `/internal/users/${userId}/runs/${runId}/events?limit=200`;
    await bus.publish('runs.sandbox-allocated', {
      key: runId,
      type: 'run.sandbox-allocated',
      id: `${runId}:sandbox-allocated`,
      data: { runId, sandboxRecordId: 'record', sandboxId: null, runtime: { provider: 'local', runId: 'session' } },
    });
    for (let seq = 0; seq < 30; seq += 1) await publishEvent(runId, seq);
    await waitFor('some events stored', async () => (await call<{ events: RunEvent[] }>('GET', eventsPath)).data.events.length >= 10, untilRuns);

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
    await bus.publish('runs.finished', {
      key: runId,
      type: 'run.finished',
      id: `${runId}:finished`,
      // As the sandboxes service sends it: with the allocation, so the end applies whichever of the two topics comes first.
      data: {
        runId,
        status: 'success',
        error: null,
        failure: null,
        eventCount: 60,
        sandboxRecordId: 'record',
        sandboxId: null,
        runtime: { provider: 'local', runId: 'session' },
      },
    });

    runs = await startRunsProcess(env);
    const final = await waitFor(
      'all 60 events and success',
      async () => {
        const answer = (await call<{ run: Run; events: RunEvent[] }>('GET', eventsPath)).data;
        return answer.events.length === 60 && answer.run.status === 'success' ? answer : undefined;
      },
      untilRuns,
    );
    expect(final.events.map((e) => e.id)).toEqual(Array.from({ length: 60 }, (_, seq) => `${runId}:event:${seq}`));
    expect(final.events.filter((e) => e.message === 'resent')).toEqual([]);
    expect(final.run).toMatchObject({ status: 'success', sandboxRecordId: 'record', error: null });
  }, 120_000);
});
