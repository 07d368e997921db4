import { mongoProcessedStore, startOutboxRelay } from '@ars/bus';
import type { EnvSource } from '@ars/config';
import { createCatalogClient } from '@ars/catalog/client';
import { createHttpClient } from '@ars/http-client';
import { createSandboxesClient } from '@ars/sandboxes/client';
import type { Logger } from '@ars/logger';
import { configSecrets, knownSecrets } from '@ars/sanitize';
import { runService, type RunningService } from '@ars/service';
import { RUNS_PORT, runsConfigSchema, runsConfiguration, runsFullConfigSchema } from './config.js';
import { startRunConsumers } from './consumers/index.js';
import { createRunSignalPublisher } from '@ars/run-signals';
import type { RunsDeps } from './http/deps.js';
import { runsRoutes } from './http/routes.js';
import { COLLECTIONS, RUNS_INDEXES } from './store/collections.js';
import { FollowUpStore } from './store/followUps.js';
import { IdempotencyStore } from './store/idempotency.js';
import { RunEventStore } from './store/runEvents.js';
import { RunStore } from './store/runs.js';
import { startWatchdog } from './watchdog/watchdog.js';

export { RUNS_PORT };

export interface RunsRuntime {
  env?: EnvSource;
  handleSignals?: boolean;
  exit?: (code: number) => void;
  logger?: Logger;
}

export type RunningRuns = RunningService<typeof runsConfigSchema, RunsDeps>;

/**
 * Starts the runs service: `main.ts` with process defaults; tests in-process with
 * `handleSignals: false`. Compose (stores and peer clients), routes, then (in `start`) the outbox
 * relay, the consumers and the watchdog; shutdown stops them in reverse order.
 */
export async function startRuns(runtime: RunsRuntime = {}): Promise<RunningRuns> {
  // The relay starts after the routes; until then a kick has nothing to wake.
  let relayKick = (): void => undefined;
  return runService({
    ...runsConfiguration,
    indexes: RUNS_INDEXES,
    runtime,
    compose: (ctx) => {
      const db = ctx.mongo?.db;
      if (!db) throw new Error('runs needs MongoDB');
      const { config, logger } = ctx;
      const internalToken = config.INTERNAL_TOKEN ?? '';
      const catalogHttp = createHttpClient({ baseUrl: config.CATALOG_URL, caller: 'runs', internalToken, logger, peer: 'catalog' });
      const sandboxesHttp = createHttpClient({ baseUrl: config.SANDBOXES_URL, caller: 'runs', internalToken, logger, peer: 'sandboxes' });
      ctx.onShutdown(() => Promise.all([catalogHttp.close(), sandboxesHttp.close()]).then(() => undefined), 'http clients');
      const deps: RunsDeps = {
        runs: new RunStore(db),
        events: new RunEventStore(db),
        idempotency: new IdempotencyStore(db),
        followUps: new FollowUpStore(db),
        catalog: createCatalogClient(catalogHttp),
        sandboxes: createSandboxesClient(sandboxesHttp),
        settings: { timeoutMs: config.RUN_TIMEOUT_MS, startTimeoutMs: config.RUN_START_TIMEOUT_MS, lostGraceMs: config.RUN_LOST_GRACE_MS },
        kickOutbox: () => relayKick(),
        logger,
      };
      logger.info(
        {
          run_timeout_ms: config.RUN_TIMEOUT_MS,
          run_start_timeout_ms: config.RUN_START_TIMEOUT_MS,
          run_lost_grace_ms: config.RUN_LOST_GRACE_MS,
          watchdog_interval_ms: config.WATCHDOG_INTERVAL_MS,
          consumer_group: config.RUNS_CONSUMER_GROUP,
        },
        'runs configured',
      );
      return deps;
    },
    routes: (ctx, deps) => [runsRoutes(deps, ctx.config.INTERNAL_TOKEN ?? '')],
    start: async (ctx, deps) => {
      const db = ctx.mongo?.db;
      const bus = ctx.bus;
      if (!db || !bus) throw new Error('runs needs MongoDB and Kafka');
      const { config, logger } = ctx;

      const relay = startOutboxRelay({ db, collections: [COLLECTIONS.runs], bus, logger });
      relayKick = () => relay.kick();
      ctx.onShutdown(() => relay.stop(), 'outbox relay');

      const processed = mongoProcessedStore(db, { collection: COLLECTIONS.processed });
      await processed.ensureIndexes();
      // What a sandbox could not know to redact: this service's own secrets (INTERNAL_TOKEN, MONGO_URL's password).
      const secrets = knownSecrets(configSecrets(runsFullConfigSchema, config));
      const deadlines = { startTimeoutMs: config.RUN_START_TIMEOUT_MS, lostGraceMs: config.RUN_LOST_GRACE_MS };
      const signals = createRunSignalPublisher(config.REDIS_URL, logger);
      ctx.onShutdown(() => signals.close(), 'run signals');
      const consumer = await startRunConsumers(
        bus,
        { runs: deps.runs, events: deps.events, deadlines, logger, secrets, signals },
        {
          groupId: config.RUNS_CONSUMER_GROUP,
          processed,
          sessionTimeoutMs: config.RUNS_CONSUMER_SESSION_TIMEOUT_MS,
        },
      );
      ctx.onShutdown(() => consumer.stop(), 'consumers');

      const watchdog = startWatchdog({
        runs: deps.runs,
        settings: { startTimeoutMs: config.RUN_START_TIMEOUT_MS, lostGraceMs: config.RUN_LOST_GRACE_MS },
        intervalMs: config.WATCHDOG_INTERVAL_MS,
        logger,
        cancelInSandbox: (run) => deps.sandboxes.cancelRun(run._id, run.userId),
        kickOutbox: () => relay.kick(),
      });
      ctx.onShutdown(() => watchdog.stop(), 'watchdog');
    },
  });
}
