import { mongoProcessedStore, startOutboxRelay } from '@ars/bus';
import type { EnvSource } from '@ars/config';
import { createCatalogClient } from '@ars/catalog/client';
import { createHttpClient } from '@ars/http-client';
import type { Logger } from '@ars/logger';
import { createRunsClient } from '@ars/runs/client';
import { configSecrets, knownSecrets } from '@ars/sanitize';
import { runService, type RunningService } from '@ars/service';
import { AUTOMATIONS_ENGINE_PORT, automationsEngineConfigSchema, automationsEngineConfiguration, automationsEngineFullConfigSchema } from './config.js';
import { startAgentRunFinishedConsumer } from './consumers/agentRunFinished.js';
import { startEngineLoops } from './engine/loops.js';
import { ProgramCache } from './engine/programs.js';
import { RunDriver } from './engine/runDriver.js';
import type { AutomationsDeps } from './http/deps.js';
import { automationsRoutes } from './http/routes.js';
import { AutomationEventStore } from './store/automationEvents.js';
import { AutomationRunStore } from './store/automationRuns.js';
import { AutomationStore } from './store/automations.js';
import { AutomationVersionStore } from './store/automationVersions.js';
import { AUTOMATIONS_ENGINE_INDEXES, COLLECTIONS } from './store/collections.js';
import { TimerStore } from './store/timers.js';

export { AUTOMATIONS_ENGINE_PORT };

export interface AutomationsEngineRuntime {
  env?: EnvSource;
  handleSignals?: boolean;
  exit?: (code: number) => void;
  logger?: Logger;
}

export type RunningAutomationsEngine = RunningService<typeof automationsEngineConfigSchema, AutomationsDeps>;

/**
 * Starts the automations engine: `main.ts` with process defaults; tests in-process with
 * `handleSignals: false`. Compose (stores, peer clients, the run driver), routes, then (in `start`)
 * the outbox relay, the runs.finished consumer and the timer and sweeper loops.
 */
export async function startAutomationsEngine(runtime: AutomationsEngineRuntime = {}): Promise<RunningAutomationsEngine> {
  // The relay starts after the routes; until then a kick has nothing to wake.
  let relayKick = (): void => undefined;
  return runService({
    ...automationsEngineConfiguration,
    indexes: AUTOMATIONS_ENGINE_INDEXES,
    runtime,
    compose: (ctx) => {
      const db = ctx.mongo?.db;
      if (!db) throw new Error('the automations engine needs MongoDB');
      const { config, logger } = ctx;
      const peer = (baseUrl: string, name: string) =>
        createHttpClient({ baseUrl, caller: 'automations-engine', internalToken: config.INTERNAL_TOKEN, logger, peer: name });
      const catalogHttp = peer(config.CATALOG_URL, 'catalog');
      const runsHttp = peer(config.RUNS_URL, 'runs');
      ctx.onShutdown(() => Promise.all([catalogHttp.close(), runsHttp.close()]).then(() => undefined), 'http clients');
      const runs = new AutomationRunStore(db);
      const versions = new AutomationVersionStore(db);
      const timers = new TimerStore(db);
      const events = new AutomationEventStore(db);
      const programs = new ProgramCache(versions);
      const runsApi = createRunsClient(runsHttp);
      const driver = new RunDriver({
        runs,
        timers,
        events,
        programs,
        runsApi,
        logger,
        kickOutbox: () => relayKick(),
        checkAfterMs: config.AUTOMATIONS_CHECK_AFTER_MS,
        secrets: knownSecrets(configSecrets(automationsEngineFullConfigSchema, config)),
      });
      const deps: AutomationsDeps = {
        automations: new AutomationStore(db),
        versions,
        runs,
        events,
        programs,
        driver,
        catalog: createCatalogClient(catalogHttp),
        runsApi,
        logger,
      };
      return deps;
    },
    routes: (ctx, deps) => [automationsRoutes(deps, ctx.config.INTERNAL_TOKEN)],
    start: async (ctx, deps) => {
      const db = ctx.mongo?.db;
      const bus = ctx.bus;
      if (!db || !bus) throw new Error('the automations engine needs MongoDB and Kafka');
      const { config, logger } = ctx;
      const relay = startOutboxRelay({ db, collections: [COLLECTIONS.automationRuns], bus, logger });
      relayKick = () => relay.kick();
      ctx.onShutdown(() => relay.stop(), 'outbox relay');
      const processed = mongoProcessedStore(db, { collection: COLLECTIONS.processed });
      await processed.ensureIndexes();
      const consumer = await startAgentRunFinishedConsumer(
        bus,
        { runs: deps.runs, runsApi: deps.runsApi, driver: deps.driver },
        { groupId: config.AUTOMATIONS_CONSUMER_GROUP, processed, sessionTimeoutMs: config.AUTOMATIONS_CONSUMER_SESSION_TIMEOUT_MS },
      );
      ctx.onShutdown(() => consumer.stop(), 'runs.finished consumer');
      const loops = startEngineLoops({
        driver: deps.driver,
        runs: deps.runs,
        timers: new TimerStore(db),
        events: deps.events,
        logger,
        timerPollMs: config.AUTOMATIONS_TIMER_POLL_MS,
        sweepIntervalMs: config.AUTOMATIONS_SWEEP_INTERVAL_MS,
        checkAfterMs: config.AUTOMATIONS_CHECK_AFTER_MS,
      });
      ctx.onShutdown(() => loops.stop().then(() => deps.driver.settle()), 'timers and sweeper');
    },
  });
}
