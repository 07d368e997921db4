// Test support (not built into dist/): the tests play the runs service. An isolated Kafka per test
// file (so no other test's services read these topics), the suite's MongoDB, a
// real in-process catalog with real bare git repositories, and the sandboxes service in-process.
import { ModelGateway } from '../modelAccess/modelGateway.js';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createBus,
  type Bus,
  type RunAgentEventData,
  type RunFinishedData,
  type RunRequestedData,
  type RunSandboxAllocatedData,
  type RunSandboxQueuedData,
} from '@ars/bus';
import { startCatalogHarness, type CatalogHarness } from '@ars/catalog/testing';
import { createLogger } from '@ars/logger';
import {
  freePort,
  hostPid,
  internalCaller,
  recordTopics,
  startIsolatedKafka,
  testInfrastructure,
  waitFor,
  type KafkaMock,
  type NotYet,
  type TopicRecorder,
} from '@ars/testenv';
import { startSandboxes, type RunningSandboxes, type SandboxesRuntime } from '../sandboxes.js';

// Whether a process lives is the harness tests' rule; the kit's tests use the same one.
export { isAlive } from '../harness/testing.js';

/** Model upstreams for tests whose harnesses call no model (a closed port: a call would fail at once). */
export const NO_MODEL_UPSTREAMS = { responses: 'http://127.0.0.1:9/v1', messages: 'http://127.0.0.1:9' } as const;

/** A model gateway to nowhere, for providers whose tests call no model. */
export function noModelGateway(): ModelGateway {
  return new ModelGateway({ upstreams: NO_MODEL_UPSTREAMS, providerKeys: {}, runTokenBudget: null });
}

export const fastSession = { sessionTimeoutMs: 6_000, rebalanceTimeoutMs: 1_500, heartbeatIntervalMs: 300 } as const;

export interface TestRepo {
  userId: string;
  repoId: string;
  /** The bare repository on the local source host. */
  barePath: string;
}

export interface RunMessages {
  allocated: RunSandboxAllocatedData[];
  events: RunAgentEventData[];
  /** Every `run.agent-event` message id seen, in arrival order (duplicates kept). */
  eventIds: string[];
  finished: RunFinishedData[];
  /** `run.sandbox-queued` notices, in arrival order. */
  queued: RunSandboxQueuedData[];
}

export interface SandboxesKit {
  kafka: KafkaMock;
  bus: Bus;
  catalog: CatalogHarness;
  sandboxRoot: string;
  dbName: string;
  token: string;
  mongoUrl: string;
  logLines: string[];
  service: RunningSandboxes | undefined;
  /** The environment a service of this kit starts with (add to it per start). */
  serviceEnv(extra?: Record<string, string>): Record<string, string>;
  /** The service in-process with more settings, and runtime seams (an egress lookup) when a test needs them. */
  startService(extra?: Record<string, string>, runtime?: Pick<SandboxesRuntime, 'egressLookup'>): Promise<RunningSandboxes>;
  stopService(): Promise<void>;
  newRepo(): Promise<TestRepo>;
  /** Publishes `runs.requested` as runs does; answers the request sent. */
  requestRun(repo: TestRepo, prompt: string, overrides?: Partial<RunRequestedData>, messageId?: string): Promise<RunRequestedData>;
  messages(runId: string): RunMessages;
  waitFinished(runId: string, timeoutMs?: number): Promise<RunFinishedData>;
  waitFor<T>(what: string, check: () => T | NotYet, timeoutMs?: number): Promise<T>;
  cancel(runId: string, userId: string): Promise<{ status: number; body: unknown }>;
  /** An internal route of the running service (`/internal/…`) with the `X-Internal-Token` header; `body` is the parsed JSON answer. */
  internal<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

export async function startSandboxesKit(): Promise<SandboxesKit> {
  const infra = testInfrastructure();
  const kafka = await startIsolatedKafka();
  const catalog = await startCatalogHarness();
  const sandboxRoot = mkdtempSync(join(tmpdir(), 'ars-sandboxes-test-'));
  const dbName = `sandboxes_test_${randomBytes(6).toString('hex')}`;
  const token = catalog.token;
  const logLines: string[] = [];
  const bus = createBus({ brokers: kafka.brokers, clientId: 'runs-test' });
  await bus.connect();
  const byRun = new Map<string, RunMessages>();
  const messagesOf = (runId: string): RunMessages => {
    let entry = byRun.get(runId);
    if (!entry) {
      entry = { allocated: [], events: [], eventIds: [], finished: [], queued: [] };
      byRun.set(runId, entry);
    }
    return entry;
  };
  const recorder: TopicRecorder = await recordTopics(bus, {
    group: 'runs-test',
    topics: ['runs.sandbox-allocated', 'runs.sandbox-queued', 'runs.agent-events', 'runs.finished'],
    session: fastSession,
    onMessage: (message, topic) => {
      const data = message.data as { runId: string };
      const entry = messagesOf(data.runId);
      if (topic === 'runs.sandbox-allocated') entry.allocated.push(message.data as RunSandboxAllocatedData);
      if (topic === 'runs.sandbox-queued') entry.queued.push(message.data as RunSandboxQueuedData);
      if (topic === 'runs.agent-events') {
        entry.events.push(message.data as RunAgentEventData);
        entry.eventIds.push(message.id);
      }
      if (topic === 'runs.finished') {
        entry.finished.push(message.data as RunFinishedData);
        // The finish's id is fixed: record it beside the data for the tests that check it.
        (entry.finished[entry.finished.length - 1] as RunFinishedData & { messageId?: string }).messageId = message.id;
      }
    },
  });

  const runningUrl = (): string => {
    if (!kit.service) throw new Error('no service running');
    return kit.service.url;
  };
  const asRuns = internalCaller({ url: runningUrl, token, caller: 'runs' });
  const asGateway = internalCaller({ url: runningUrl, token, caller: 'gateway' });

  const kit: SandboxesKit = {
    kafka,
    bus,
    catalog,
    sandboxRoot,
    dbName,
    token,
    mongoUrl: infra.mongoUrl,
    logLines,
    service: undefined,
    serviceEnv: (extra = {}) => ({
      MONGO_URL: infra.mongoUrl,
      MONGO_DB: dbName,
      KAFKA_BROKERS: kafka.brokers.join(','),
      INTERNAL_TOKEN: token,
      CATALOG_URL: catalog.url,
      SANDBOX_ROOT: sandboxRoot,
      // Scripted CLIs that call no model (the real ones have their own suites).
      HARNESS_CLIS: 'stand-in',
      SESSION_HEARTBEAT_MS: '500',
      SESSION_LOST_AFTER_MS: '3000',
      LOG_LEVEL: 'debug',
      ...extra,
    }),
    startService: async (extra = {}, runtime = {}) => {
      const logger = createLogger({ service: 'sandboxes', level: 'debug', destination: { write: (line: string) => void logLines.push(line) } });
      const service = await startSandboxes({
        handleSignals: false,
        exit: () => undefined,
        logger,
        consumerSession: fastSession,
        ...runtime,
        env: { PORT: String(await freePort()), ...kit.serviceEnv(extra) },
      });
      kit.service = service;
      return service;
    },
    stopService: async () => {
      const service = kit.service;
      kit.service = undefined;
      if (service) await service.shutdown('test over');
    },
    newRepo: async () => {
      const userId = catalog.newUser();
      const dev = await catalog.devInstallation(userId);
      const repo = dev.repos[0];
      if (!repo) throw new Error('the dev installation has no repository');
      const detail = (await catalog.call<{ repo: { clone_url: string } }>('GET', `/internal/users/${userId}/repos/${repo.id}`)).data.repo;
      return { userId, repoId: repo.id, barePath: fileURLToPath(detail.clone_url) };
    },
    requestRun: async (repo, prompt, overrides = {}, messageId) => {
      const runId = overrides.runId ?? `run_${randomBytes(8).toString('hex')}`;
      const data: RunRequestedData = {
        runId,
        userId: repo.userId,
        repoId: repo.repoId,
        harness: 'codex',
        prompt,
        branch: { base: 'main', working: 'main', createBranch: false },
        rootDirectory: null,
        model: null,
        agentId: null,
        mode: null,
        timeoutMs: 60_000,
        startBy: new Date(Date.now() + 120_000).toISOString(),
        ...overrides,
      };
      await bus.publish('runs.requested', { key: runId, type: 'run.requested', id: messageId ?? `${runId}:requested`, data });
      return data;
    },
    messages: messagesOf,
    // Different topics carry no order between them: the finish may be read before the last events,
    // so this waits for `eventCount` events too (as runs must).
    waitFinished: async (runId, timeoutMs = 45_000) => {
      const finished = await kit
        .waitFor(`run.finished of ${runId}`, () => messagesOf(runId).finished[0], timeoutMs)
        .catch(async (error: unknown) => {
          throw new Error(`${error instanceof Error ? error.message : String(error)}\n${await runStory(runId, messagesOf(runId), logLines, kit.service)}`);
        });
      await kit.waitFor(`${finished.eventCount ?? 0} events of ${runId}`, () => messagesOf(runId).events.length >= (finished.eventCount ?? 0), 10_000);
      return finished;
    },
    waitFor: (what, check, timeoutMs) => waitFor(what, check, timeoutMs),
    cancel: async (runId, userId) => {
      const answer = await asRuns('POST', `/internal/runs/${encodeURIComponent(runId)}/cancel`, { userId });
      return { status: answer.status, body: answer.body };
    },
    internal: async <T>(method: string, path: string, body?: unknown) => {
      const answer = await asGateway(method, path, body);
      return { status: answer.status, body: (answer.body ?? null) as T };
    },
    stop: async () => {
      await kit.stopService();
      await recorder.stop();
      await bus.disconnect();
      await catalog.stop();
      await kafka.close();
      rmSync(sandboxRoot, { recursive: true, force: true });
    },
  };
  return kit;
}

/**
 * What a run went through, for a wait that timed out: the messages seen for it, its session as
 * stored, this instance's live sessions and queue, and the service's log lines naming it (a CI log
 * has nothing else to tell why a run never finished).
 */
async function runStory(runId: string, seen: RunMessages, logLines: string[], service: RunningSandboxes | undefined): Promise<string> {
  const notices = seen.queued.map((n) => `${n.state}/${n.reason}`).join(',') || 'none';
  const session = service ? await service.deps.runSessions.get(runId).catch((error: unknown) => `unreadable: ${String(error)}`) : 'no service running';
  const stored = session && typeof session === 'object' ? JSON.stringify({ ...session, _outbox: undefined }) : String(session);
  const live = service ? service.deps.live.runIds() : [];
  const lines = logLinesNaming(logLines, [runId], 30);
  const liveLines = logLinesNaming(logLines, live, 20);
  return [
    `seen: queued notices ${notices}, allocated ${seen.allocated.length}, events ${seen.events.length}, finished ${seen.finished.length}`,
    `its session: ${stored}`,
    service ? `this instance: live ${JSON.stringify(live)}, queued ${JSON.stringify(service.deps.queue.runIds())}` : '',
    `the service's log lines naming it (last ${lines.length}):`,
    ...lines,
    `the service's log lines naming its live runs (last ${liveLines.length}):`,
    ...liveLines,
  ].join('\n');
}

function logLinesNaming(logLines: string[], runIds: string[], last: number): string[] {
  if (runIds.length === 0) return [];
  return logLines
    .filter((line) => runIds.some((runId) => line.includes(runId)))
    .slice(-last)
    .map((line) => {
      try {
        const { time, level, msg, err, run_id } = JSON.parse(line) as {
          time?: unknown;
          level?: unknown;
          msg?: unknown;
          run_id?: unknown;
          err?: { message?: unknown };
        };
        return `  ${String(time)} ${String(level)} ${String(run_id)} ${String(msg)}${err?.message ? ` (${String(err.message)})` : ''}`;
      } catch {
        return `  ${line.slice(0, 300)}`;
      }
    });
}

/** `git` in a directory, output trimmed. */
export function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Adds a commit with `files` on `branch` of a bare repository (through a temporary clone). */
export function commitToBare(barePath: string, branch: string, files: Record<string, string>): void {
  const work = mkdtempSync(join(tmpdir(), 'ars-seed-'));
  try {
    execFileSync('git', ['clone', '--quiet', barePath, work], { stdio: 'ignore' });
    const exists = execFileSync('git', ['ls-remote', '--heads', 'origin', branch], { cwd: work, encoding: 'utf8' }).trim() !== '';
    execFileSync('git', exists ? ['checkout', '--quiet', branch] : ['checkout', '--quiet', '-b', branch], { cwd: work, stdio: 'ignore' });
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(work, path)), { recursive: true });
      writeFileSync(join(work, path), content);
    }
    execFileSync('git', ['add', '-A'], { cwd: work });
    execFileSync('git', ['-c', 'user.name=seed', '-c', 'user.email=seed@example.invalid', 'commit', '--quiet', '-m', 'seed'], { cwd: work });
    execFileSync('git', ['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`], { cwd: work, stdio: 'ignore' });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** `$PPID $PWD` as printed by `@shell echo $PPID $PWD`: the harness's pid as the host sees it. */
export function reportedHostPid(output: unknown): number {
  const [pid, cwd] = String(output).trim().split(' ');
  return hostPid(Number(pid), cwd ?? '');
}
