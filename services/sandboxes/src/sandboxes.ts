import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { startOutboxRelay, type OutboxRelay } from '@ars/bus';
import { exitOnConfigError, type EnvSource } from '@ars/config';
import { createCatalogClient } from '@ars/catalog/client';
import { createHttpClient } from '@ars/http-client';
import type { Logger } from '@ars/logger';
import { configSecrets, knownSecrets } from '@ars/sanitize';
import { runService, type RunningService } from '@ars/service';
import { DRAIN_LEAVES_MS, loadSandboxesConfig, SANDBOXES_PORT, sandboxesConfigSchema, sandboxesConfiguration } from './config.js';
import { consumeRunRequested } from './consumers/runRequested.js';
import { harnessClis } from './harness/harnessClis.js';
import { sandboxesRoutes } from './http/routes.js';
import { join } from 'node:path';
import type { LifecycleDeps } from './lifecycle/deps.js';
import { startKeeper } from './lifecycle/keeper.js';
import { LiveSandboxes } from './lifecycle/liveSandboxes.js';
import { reportLiveSandboxes } from './metrics.js';
import { createProvider, egressAllowLists, localIsolation, localSandboxLimits } from './providers/createProvider.js';
import type { SandboxLimits } from './providers/local/limits/limits.js';
import type { LocalIsolation } from './providers/local/localIsolation.js';
import { COLLECTIONS, SANDBOXES_INDEXES } from './store/collections.js';
import { ConversationThreadStore } from './store/conversationThreads.js';
import { SandboxLogStore } from './store/sandboxLogs.js';
import { SandboxRecordStore } from './store/sandboxRecords.js';
import { RunSessionStore } from './store/runSessions.js';
import { SnapshotStore } from './store/snapshots.js';
import type { SessionDeps } from './sessions/deps.js';
import { LiveSessions } from './sessions/liveSessions.js';
import { RunQueue } from './sessions/runQueue.js';
import { pumpQueue } from './sessions/startRunSession.js';
import { startSupervisor } from './sessions/supervisor.js';

export { SANDBOXES_PORT };

/** The usual PATH of a container image: a Pod's commands do not get this service's. */
const IMAGE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface SandboxesRuntime {
  env?: EnvSource;
  handleSignals?: boolean;
  exit?: (code: number) => void;
  logger?: Logger;
  /** Consumer group timings (tests use short ones against the mock). */
  consumerSession?: { sessionTimeoutMs?: number; rebalanceTimeoutMs?: number; heartbeatIntervalMs?: number };
  /** How the egress proxies resolve names (tests: their test host's name); default the system resolver. */
  egressLookup?: (host: string) => Promise<string[]>;
}

/** What compose builds: the harness sessions' dependencies and the public sandboxes'. */
export interface SandboxesDeps {
  sessions: SessionDeps;
  lifecycle: LifecycleDeps;
}

/** The running service; tests reach the sessions' dependencies as `deps` and the public sandboxes' as `lifecycle`. */
export type RunningSandboxes = Omit<RunningService<typeof sandboxesConfigSchema, SandboxesDeps>, 'deps'> & { deps: SessionDeps; lifecycle: LifecycleDeps };

/**
 * Starts the sandboxes service: `main.ts` with process defaults; tests in-process with
 * `handleSignals: false`. Compose (stores, provider, catalog client), routes, then (in `start`) the
 * outbox relay, the keeper, the supervisor and the `runs.requested` consumer.
 */
export async function startSandboxes(runtime: SandboxesRuntime = {}): Promise<RunningSandboxes> {
  // Started in `start`; until then a kick has nothing to wake.
  let relay: OutboxRelay | undefined;
  const { consumerSession, egressLookup, ...serviceRuntime } = runtime;
  // Before anything starts: a refused configuration, or isolation unavailable here, is one line and exit 1.
  let isolation: LocalIsolation | null;
  let limits: SandboxLimits | null;
  let egressLists: ReturnType<typeof egressAllowLists>;
  try {
    const config = loadSandboxesConfig(serviceRuntime.env ?? process.env);
    egressLists = egressAllowLists(config);
    isolation = await localIsolation(config);
    limits = await localSandboxLimits(config, isolation).catch(async (error: unknown) => {
      await isolation?.close();
      throw error;
    });
  } catch (error) {
    if (runtime.handleSignals === false) throw error;
    return exitOnConfigError(error);
  }
  const service = await runService({
    ...sandboxesConfiguration,
    indexes: SANDBOXES_INDEXES,
    runtime: serviceRuntime,
    compose: async (ctx) => {
      const db = ctx.mongo?.db;
      const bus = ctx.bus;
      if (!db || !bus) throw new Error('the sandboxes service needs MongoDB and Kafka');
      const config = ctx.config;
      const catalogHttp = createHttpClient({
        baseUrl: config.CATALOG_URL,
        caller: 'sandboxes',
        // A clone URL may need a fresh installation token from the source host: more than the default 5 s.
        timeoutMs: 10_000,
        internalToken: config.INTERNAL_TOKEN,
        logger: ctx.logger,
        peer: 'catalog',
      });
      ctx.onShutdown(() => catalogHttp.close(), 'catalog client');
      const instanceId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
      // Redacted from every event, error, lifecycle payload and sandbox log this service publishes or keeps.
      const secrets = knownSecrets(configSecrets(sandboxesConfigSchema, config));
      const sandboxStore = new SandboxRecordStore(
        db,
        { maxLivePerUser: config.SANDBOX_MAX_LIVE_PER_USER, lifecycleEventsKept: config.SANDBOX_LIFECYCLE_EVENTS_MAX },
        secrets,
      );
      const catalog = createCatalogClient(catalogHttp);
      const provider = await createProvider(config, serviceRuntime.env ?? process.env, {
        isolation,
        limits,
        // The allocation that takes the pool's next sandbox prepares it in the foreground and fails with the cause.
        onBackgroundError: (error) => ctx.logger.warn({ err: error }, 'a sandbox of the warm pool could not be prepared or released'),
        egress: {
          ...egressLists,
          ...(egressLookup ? { lookup: egressLookup } : {}),
          // Each connection a sandbox tried is in its lifecycle: which phase, where, and why it was refused.
          onDecision: (owner, phase, event) => {
            const { kind, ...where } = event;
            sandboxStore
              .event(owner.sandboxRecordId, { eventType: kind, decisionCode: phase, runId: owner.runId, payload: where })
              .catch((error: unknown) => ctx.logger.warn({ err: error, sandbox_record_id: owner.sandboxRecordId }, 'egress decision not recorded'));
          },
        },
      });
      if (limits) ctx.logger.info({ sandbox_limits: limits.support.limits }, `sandbox limits: ${limits.support.line}`);
      if (provider.name === 'local' && isolation === null) {
        ctx.logger.warn(
          { sandbox_isolation: 'none' },
          "SANDBOX_ISOLATION=none: agents and sandbox commands run UNISOLATED, as plain processes of this service: they can read every service's environment and files and reach MongoDB, Redis and the internal APIs (development only)",
        );
      }
      const commandPath = config.SANDBOX_COMMAND_PATH ?? (provider.name === 'local' ? process.env.PATH : IMAGE_PATH);
      ctx.onShutdown(() => provider.close?.(), 'sandbox provider');
      // The kubernetes provider's model gateway listens for its Pods before any run can start: a port in use stops the start.
      const modelListener = await provider.listen?.();
      if (modelListener) ctx.logger.info({ model_gateway_url: modelListener.url }, 'model gateway listening for sandbox Pods');
      reportLiveSandboxes(sandboxStore, provider.name, ctx.logger);
      const lifecycle: LifecycleDeps = {
        instanceId,
        sandboxRecords: sandboxStore,
        logs: new SandboxLogStore(db),
        snapshots: new SnapshotStore(db),
        provider,
        catalog,
        live: new LiveSandboxes(),
        settings: {
          idleTimeoutMs: config.SANDBOX_IDLE_TIMEOUT_MS,
          installTimeoutMs: config.SANDBOX_INSTALL_TIMEOUT_MS,
          devReadyTimeoutMs: config.SANDBOX_DEV_READY_TIMEOUT_MS,
          logCapBytes: config.SANDBOX_LOG_CAP_BYTES,
          logFlushMs: config.SANDBOX_LOG_FLUSH_MS,
          snapshotRoot: config.SNAPSHOT_ROOT ?? join(config.SANDBOX_ROOT, '.snapshots'),
          snapshotRetentionMs: config.SNAPSHOT_RETENTION_MS,
          snapshotMaxPerUser: config.SNAPSHOT_MAX_PER_USER,
          lostAfterMs: config.SESSION_LOST_AFTER_MS,
          secrets: secrets.values,
          commandPath,
        },
        logger: ctx.logger,
      };
      const clis = harnessClis(config);
      const sessions: SessionDeps = {
        instanceId,
        bus,
        runSessions: new RunSessionStore(db),
        sandboxRecords: sandboxStore,
        provider,
        catalog,
        live: new LiveSessions(),
        queue: new RunQueue(),
        lifecycle,
        threads: new ConversationThreadStore(db),
        kickRelay: () => relay?.kick(),
        settings: {
          clis,
          apiKeys: { codex: config.CODEX_API_KEY, 'claude-code': config.ANTHROPIC_API_KEY },
          harnessPath: commandPath,
          lang: undefined,
          tz: undefined,
          publishDeadlineMs: config.PUBLISH_DEADLINE_MS,
          defaultTimeoutMs: config.DEFAULT_RUN_TIMEOUT_MS,
          secrets,
          maxSessions: config.SANDBOX_MAX_SESSIONS,
        },
        logger: ctx.logger,
      };
      // A session that ends frees its slot: the oldest queued run that fits starts.
      sessions.live.onEnded(() => {
        pumpQueue(sessions).catch((error: unknown) => ctx.logger.warn({ err: error }, 'run queue pump failed'));
      });
      ctx.logger.info(
        {
          provider: provider.name,
          isolation: provider.name === 'local' ? config.SANDBOX_ISOLATION : 'pod',
          sandbox_root: config.SANDBOX_ROOT,
          harness_clis: config.HARNESS_CLIS,
          codex: clis.codex.executablePath ?? 'bundled',
          claude_code: clis['claude-code'].executablePath ?? 'bundled',
          instance_id: sessions.instanceId,
        },
        'sandboxes configured',
      );
      return { sessions, lifecycle };
    },
    routes: (ctx, deps) => [sandboxesRoutes(deps.sessions, deps.lifecycle, ctx.config.INTERNAL_TOKEN)],
    start: async (ctx, { sessions, lifecycle }) => {
      const db = ctx.mongo?.db;
      const bus = ctx.bus;
      if (!db || !bus) throw new Error('the sandboxes service needs MongoDB and Kafka');
      const outbox = startOutboxRelay({ db, collections: [COLLECTIONS.sessions], bus, logger: ctx.logger });
      relay = outbox;
      // Registered first, so it runs last on shutdown: the ended sessions' `run.finished` go out first.
      ctx.onShutdown(async () => {
        await outbox.runOnce().catch(() => undefined);
        await outbox.stop();
      }, 'outbox relay');
      // Graceful shutdown: live sessions are aborted and reported failed `sandbox_lost`.
      ctx.onShutdown((budget) => sessions.live.abortAll('shutdown', budget.remainingMs()), 'live sessions');
      const keeper = startKeeper(lifecycle, { heartbeatMs: ctx.config.SESSION_HEARTBEAT_MS, lostAfterMs: ctx.config.SESSION_LOST_AFTER_MS });
      // Public sandboxes are stopped (and snapshotted) at shutdown, while MongoDB is still there.
      ctx.onShutdown((budget) => keeper.stop(budget.remainingMs()), 'sandbox keeper');
      const supervisor = startSupervisor(sessions, { heartbeatMs: ctx.config.SESSION_HEARTBEAT_MS, lostAfterMs: ctx.config.SESSION_LOST_AFTER_MS });
      // Hooks run in reverse: the queue closes first, the consumer stops, the queued runs are handed
      // back (any instance adopts them), the live runs get SANDBOX_DRAIN_MS to finish on their own
      // (the supervisor still marks them alive and takes cancels meanwhile), the supervisor stops,
      // then what is still live is aborted. Each wait takes what is left of the one shutdown deadline
      // at most, and the drain leaves DRAIN_LEAVES_MS of it to the stops and aborts after it.
      ctx.onShutdown(() => supervisor.stop(), 'session supervisor');
      ctx.onShutdown(async (budget) => {
        if (ctx.config.SANDBOX_DRAIN_MS === 0 || sessions.live.size === 0) return;
        const drainMs = Math.min(ctx.config.SANDBOX_DRAIN_MS, Math.max(0, budget.remainingMs() - DRAIN_LEAVES_MS));
        ctx.logger.info({ live_runs: sessions.live.size, drain_ms: drainMs }, 'draining live runs');
        const left = await sessions.live.drain(drainMs);
        if (left > 0) ctx.logger.warn({ live_runs: left }, 'live runs still running after the drain: aborted');
      }, 'live runs drain');
      ctx.onShutdown(async () => {
        const handed = await sessions.runSessions.handBack(sessions.instanceId);
        if (handed > 0) ctx.logger.info({ queued_runs: handed }, 'queued runs handed back: another instance (or this one restarted) takes them');
      }, 'queued runs');
      const consumer = await consumeRunRequested(bus, db, sessions, consumerSession ? { session: consumerSession } : {});
      ctx.onShutdown(() => consumer.stop(), 'runs.requested consumer');
      ctx.onShutdown(() => sessions.queue.close(), 'run queue');
    },
  });
  return { ...service, deps: service.deps.sessions, lifecycle: service.deps.lifecycle };
}
