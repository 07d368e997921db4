import type { EnvSource } from '@ars/config';
import { createCatalogClient } from '@ars/catalog/client';
import { createHttpClient } from '@ars/http-client';
import type { Logger } from '@ars/logger';
import { runService, type RunningService } from '@ars/service';
import { AUTOMATIONS_ENGINE_PORT, automationsEngineConfigSchema } from './config.js';
import type { AutomationsDeps } from './http/deps.js';
import { automationsRoutes } from './http/routes.js';
import { AutomationRunStore } from './store/automationRuns.js';
import { AutomationStore } from './store/automations.js';
import { AutomationVersionStore } from './store/automationVersions.js';
import { AUTOMATIONS_ENGINE_INDEXES } from './store/collections.js';

export { AUTOMATIONS_ENGINE_PORT };

export interface AutomationsEngineRuntime {
  env?: EnvSource;
  handleSignals?: boolean;
  exit?: (code: number) => void;
  logger?: Logger;
}

export type RunningAutomationsEngine = RunningService<typeof automationsEngineConfigSchema, AutomationsDeps>;

/** Starts the automations engine: `main.ts` with process defaults; tests in-process with `handleSignals: false`. */
export async function startAutomationsEngine(runtime: AutomationsEngineRuntime = {}): Promise<RunningAutomationsEngine> {
  return runService({
    name: 'automations-engine',
    port: AUTOMATIONS_ENGINE_PORT,
    requireMongo: true,
    requireBus: true,
    configSchema: automationsEngineConfigSchema,
    indexes: AUTOMATIONS_ENGINE_INDEXES,
    runtime,
    compose: (ctx) => {
      const db = ctx.mongo?.db;
      if (!db) throw new Error('the automations engine needs MongoDB');
      const { config, logger } = ctx;
      const catalogHttp = createHttpClient({
        baseUrl: config.CATALOG_URL,
        caller: 'automations-engine',
        internalToken: config.INTERNAL_TOKEN,
        logger,
        peer: 'catalog',
      });
      ctx.onShutdown(() => catalogHttp.close(), 'catalog client');
      const deps: AutomationsDeps = {
        automations: new AutomationStore(db),
        versions: new AutomationVersionStore(db),
        runs: new AutomationRunStore(db),
        catalog: createCatalogClient(catalogHttp),
        logger,
      };
      return deps;
    },
    routes: (ctx, deps) => [automationsRoutes(deps, ctx.config.INTERNAL_TOKEN)],
  });
}
