// Test support (not built into dist/): the runs service run in-process against the suite's MongoDB
// and Kafka (its own database and consumer group per harness), a real in-process catalog for
// repositories, a stand-in for sandboxes' cancel route, and a bus through which tests play the
// sandboxes role (publishing `runs.sandbox-allocated`/`runs.agent-events`/`runs.finished`).
import { randomBytes, randomUUID } from 'node:crypto';
import type { StartRunAnswer } from '@ars/contract';
import {
  createBus,
  type Bus,
  type BusMessage,
  type OutgoingMessage,
  type RunAgentEventData,
  type RunAllocation,
  type RunFinishedData,
  type RunRequestedData,
} from '@ars/bus';
import { INTERNAL_VIEW_HEADER, type InternalRun } from '@ars/contract';
import { startCatalogHarness, type CatalogHarness } from '@ars/catalog/testing';
import { requestHash } from '@ars/idempotency';
import { createLogger } from '@ars/logger';
import type { Db } from '@ars/mongo';
import { freePort, internalCaller, recordTopics, testInfrastructure, waitFor, type Answer, type InternalCall, type TopicRecorder } from '@ars/testenv';
import type { Run, RunEvent } from '../domain/runView.js';
import { startRuns, type RunningRuns } from '../runs.js';
import { startSandboxesStandIn, type SandboxesStandIn } from './sandboxesStandIn.js';

export interface Tenant {
  userId: string;
  /** A repository of the user's dev installation (branch `main`). */
  repoId: string;
  repoIds: string[];
}

export interface EventInput {
  eventType?: string;
  toolName?: string | null;
  message?: string | null;
  /** An agent message over the event's limit, whole (as the sandboxes service sends it). */
  fullText?: string;
  payload?: Record<string, unknown>;
  emittedAt?: string;
}

export interface RunsHarness {
  url: string;
  token: string;
  service: RunningRuns;
  db: Db;
  catalog: CatalogHarness;
  sandboxes: SandboxesStandIn;
  /** The tests' own bus: they play the sandboxes role through it. */
  bus: Bus;
  logLines: string[];
  /** An internal route with the harness's token, as `runs-test`. */
  call: InternalCall;
  /** A fresh tenant: a new user with a dev installation of real repositories. */
  newTenant(): Promise<Tenant>;
  /** POST start with a key (fresh when absent) and the body's canonical hash. */
  start(userId: string, body: Record<string, unknown>, key?: string): Promise<Answer<StartRunAnswer>>;
  getRun(userId: string, runId: string): Promise<Run>;
  /** GET with `X-Internal-View: true`: the run with its `model` and `usage`. */
  internalRun(userId: string, runId: string): Promise<InternalRun>;
  events(userId: string, runId: string, limit?: number | string): Promise<{ run: Run; events: RunEvent[] }>;
  /** What `allocate` publishes for this record (sandboxes repeats it in the run's finish: spread it into `finish`'s data). */
  allocation(runId: string, sandboxRecordId?: string): RunAllocation;
  allocate(runId: string, sandboxRecordId?: string): Promise<void>;
  event(runId: string, seq: number, input?: EventInput, messageId?: string): Promise<void>;
  /** Publishes `run.finished` (id `<runId>:finished` unless given: the watchdog's finish of the run has that id too). */
  finish(runId: string, data: Omit<RunFinishedData, 'runId'>, messageId?: string): Promise<void>;
  /** Polls until `check` returns a value other than undefined/false (30 s by default: the suite shares a busy machine). */
  waitFor<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs?: number): Promise<T>;
  /** `runs.requested` messages seen so far, by run id (a consumer of its own joins on the first call). */
  watchRequested(): Promise<Map<string, BusMessage<RunRequestedData>>>;
  /** `runs.finished` messages seen so far, by run id, in arrival order (as above). */
  watchFinished(): Promise<Map<string, BusMessage<RunFinishedData>[]>>;
  stop(): Promise<void>;
}

/** The `runs.agent-events` message sandboxes sends for the run's event `seq` (defaults: a `stream_started`, then tool calls). */
export function agentEventMessage(runId: string, seq: number, input: EventInput = {}, messageId = `${runId}:event:${seq}`): OutgoingMessage<RunAgentEventData> {
  return {
    key: runId,
    type: 'run.agent-event',
    id: messageId,
    data: {
      runId,
      seq,
      eventType: input.eventType ?? (seq === 0 ? 'stream_started' : 'tool_call'),
      toolName: input.toolName === undefined ? (seq === 0 ? null : 'shell') : input.toolName,
      message: input.message === undefined ? `event ${seq}` : input.message,
      ...(input.fullText === undefined ? {} : { fullText: input.fullText }),
      payload: input.payload ?? {},
      emittedAt: input.emittedAt ?? new Date().toISOString(),
    },
  };
}

export async function startRunsHarness(extraEnv: Record<string, string> = {}): Promise<RunsHarness> {
  const infra = testInfrastructure();
  const catalog = await startCatalogHarness();
  const token = catalog.token;
  const sandboxes = await startSandboxesStandIn(token);
  const dbName = `runs_test_${randomBytes(6).toString('hex')}`;
  const logLines: string[] = [];
  const logger = createLogger({ service: 'runs', level: 'debug', destination: { write: (line: string) => void logLines.push(line) } });
  const service = await startRuns({
    handleSignals: false,
    exit: () => undefined,
    logger,
    env: {
      PORT: String(await freePort()),
      MONGO_URL: infra.mongoUrl,
      MONGO_DB: dbName,
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      INTERNAL_TOKEN: token,
      CATALOG_URL: catalog.url,
      SANDBOXES_URL: sandboxes.url,
      RUNS_CONSUMER_GROUP: `runs-test-${randomBytes(6).toString('hex')}`,
      WATCHDOG_INTERVAL_MS: '200',
      ...extraEnv,
    },
  });
  const db = service.context.mongo?.db;
  if (!db) throw new Error('runs started without MongoDB');
  const bus = createBus({ brokers: infra.kafkaBrokers, clientId: 'runs-test-sandboxes' });
  let requestedRecorder: TopicRecorder | undefined;
  let finishedRecorder: TopicRecorder | undefined;
  const requested = new Map<string, BusMessage<RunRequestedData>>();
  const finished = new Map<string, BusMessage<RunFinishedData>[]>();

  const call = internalCaller({ url: service.url, token, caller: 'runs-test' });

  const harness: RunsHarness = {
    url: service.url,
    token,
    service,
    db,
    catalog,
    sandboxes,
    bus,
    logLines,
    call,
    waitFor: (what, check, timeoutMs) => waitFor(what, check, timeoutMs),
    async newTenant() {
      const userId = catalog.newUser();
      const dev = await catalog.devInstallation(userId);
      const repoIds = dev.repos.map((repo) => repo.id);
      return { userId, repoId: repoIds[0] ?? '', repoIds };
    },
    start: (userId, body, key = `key-${randomUUID()}`) =>
      call<StartRunAnswer>('POST', `/internal/users/${encodeURIComponent(userId)}/runs`, body, {
        'x-internal-token': token,
        'idempotency-key': key,
        'x-request-hash': requestHash(body),
      }),
    async getRun(userId, runId) {
      return (await call<{ run: Run }>('GET', `/internal/users/${encodeURIComponent(userId)}/runs/${encodeURIComponent(runId)}`)).data.run;
    },
    async internalRun(userId, runId) {
      const path = `/internal/users/${encodeURIComponent(userId)}/runs/${encodeURIComponent(runId)}`;
      return (await call<{ run: InternalRun }>('GET', path, undefined, { 'x-internal-token': token, [INTERNAL_VIEW_HEADER]: 'true' })).data.run;
    },
    async events(userId, runId, limit) {
      const query = limit === undefined ? '' : `?limit=${encodeURIComponent(String(limit))}`;
      return (
        await call<{ run: Run; events: RunEvent[] }>('GET', `/internal/users/${encodeURIComponent(userId)}/runs/${encodeURIComponent(runId)}/events${query}`)
      ).data;
    },
    allocation: (runId, sandboxRecordId = `sbx-${randomUUID()}`) => ({
      sandboxRecordId,
      sandboxId: `local-${sandboxRecordId}`,
      runtime: { provider: 'local', runId: `session-${runId}` },
    }),
    async allocate(runId, sandboxRecordId) {
      await bus.publish('runs.sandbox-allocated', {
        key: runId,
        type: 'run.sandbox-allocated',
        id: `${runId}:sandbox-allocated`,
        data: { runId, ...harness.allocation(runId, sandboxRecordId) },
      });
    },
    async event(runId, seq, input = {}, messageId = `${runId}:event:${seq}`) {
      await bus.publish('runs.agent-events', agentEventMessage(runId, seq, input, messageId));
    },
    async finish(runId, data, messageId = `${runId}:finished`) {
      await bus.publish('runs.finished', { key: runId, type: 'run.finished', id: messageId, data: { ...data, runId } as RunFinishedData });
    },
    async watchRequested() {
      requestedRecorder ??= await recordTopics(bus, {
        topics: ['runs.requested'],
        group: 'runs-test-requested',
        onMessage: (message) => void requested.set((message.data as RunRequestedData).runId, message as BusMessage<RunRequestedData>),
      });
      return requested;
    },
    async watchFinished() {
      finishedRecorder ??= await recordTopics(bus, {
        topics: ['runs.finished'],
        group: 'runs-test-finished',
        onMessage: (message) => {
          const data = message.data as RunFinishedData;
          finished.set(data.runId, [...(finished.get(data.runId) ?? []), message as BusMessage<RunFinishedData>]);
        },
      });
      return finished;
    },
    async stop() {
      await requestedRecorder?.stop();
      await finishedRecorder?.stop();
      await bus.disconnect();
      await service.shutdown('test over');
      await sandboxes.close();
      await catalog.stop();
    },
  };
  return harness;
}
