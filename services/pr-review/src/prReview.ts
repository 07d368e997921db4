import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mongoProcessedStore } from '@ars/bus';
import { environmentOf, type EnvSource } from '@ars/config';
import { createAutomationsClient } from '@ars/automations-engine/client';
import { createCatalogClient } from '@ars/catalog/client';
import { createHttpClient } from '@ars/http-client';
import type { Logger } from '@ars/logger';
import { configSecrets, knownSecrets } from '@ars/sanitize';
import { runService, type RunningService } from '@ars/service';
import { PR_REVIEW_PORT, prReviewConfigSchema, prReviewConfiguration, prReviewFullConfigSchema } from './config.js';
import { startAutomationRunEndedConsumer } from './consumers/automationRunEnded.js';
import { prReviewRoutes } from './http/routes.js';
import type { PrReviewDeps } from './review/deps.js';
import { startReportLoop } from './review/reportLoop.js';
import { localSourceHost, sourceHosts } from './review/sourceHosts.js';
import { AttemptStore } from './store/attempts.js';
import { COLLECTIONS, PR_REVIEW_INDEXES } from './store/collections.js';
import { DeliveryStore } from './store/deliveries.js';
import { ReviewAutomationStore } from './store/reviewAutomations.js';

export { PR_REVIEW_PORT };

/** The checkout's root: the local source host defaults to `.stack/source-host` there (as the catalog's). */
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export interface PrReviewRuntime {
  env?: EnvSource;
  handleSignals?: boolean;
  exit?: (code: number) => void;
  logger?: Logger;
}

export type RunningPrReview = RunningService<typeof prReviewConfigSchema, PrReviewDeps>;

/**
 * Starts pr-review: `main.ts` with process defaults; tests in-process with `handleSignals: false`.
 * Compose (stores, peer clients, source hosts), routes, then (in `start`) the automations.dispatch
 * consumer and the report loop.
 */
export async function startPrReview(runtime: PrReviewRuntime = {}): Promise<RunningPrReview> {
  // The loop starts after the routes; until then a kick has nothing to wake.
  let reportKick = (): void => undefined;
  return runService({
    ...prReviewConfiguration,
    indexes: PR_REVIEW_INDEXES,
    runtime,
    compose: (ctx) => {
      const db = ctx.mongo?.db;
      if (!db) throw new Error('pr-review needs MongoDB');
      const { config, logger } = ctx;
      const peer = (baseUrl: string, name: string) =>
        createHttpClient({ baseUrl, caller: 'pr-review', internalToken: config.INTERNAL_TOKEN, logger, peer: name });
      const catalogHttp = peer(config.CATALOG_URL, 'catalog');
      const automationsHttp = peer(config.AUTOMATIONS_ENGINE_URL, 'automations-engine');
      ctx.onShutdown(() => Promise.all([catalogHttp.close(), automationsHttp.close()]).then(() => undefined), 'http clients');
      const localHost = localSourceHost({ localDir: config.SOURCE_HOST_DIR ?? join(repoRoot, '.stack', 'source-host'), appLogin: config.PR_REVIEW_APP_LOGIN });
      const deps: PrReviewDeps = {
        attempts: new AttemptStore(db),
        reviewAutomations: new ReviewAutomationStore(db),
        deliveries: new DeliveryStore(db),
        webhookSecret: config.GITHUB_WEBHOOK_SECRET ?? null,
        catalog: createCatalogClient(catalogHttp),
        automations: createAutomationsClient(automationsHttp),
        hosts: sourceHosts({ local: localHost, githubApiUrl: config.GITHUB_API_URL }),
        localHost,
        production: environmentOf(config) === 'production',
        appLogin: config.PR_REVIEW_APP_LOGIN,
        logger,
        secrets: knownSecrets(configSecrets(prReviewFullConfigSchema, config)),
        kickReports: () => reportKick(),
      };
      return deps;
    },
    routes: (ctx, deps) => [prReviewRoutes(deps, ctx.config.INTERNAL_TOKEN)],
    start: async (ctx, deps) => {
      const db = ctx.mongo?.db;
      const bus = ctx.bus;
      if (!db || !bus) throw new Error('pr-review needs MongoDB and Kafka');
      const processed = mongoProcessedStore(db, { collection: COLLECTIONS.processed });
      await processed.ensureIndexes();
      const loop = startReportLoop(deps, ctx.config.PR_REVIEW_REPORT_POLL_MS);
      reportKick = () => loop.kick();
      ctx.onShutdown(() => loop.stop(), 'report loop');
      const consumer = await startAutomationRunEndedConsumer(bus, deps, { groupId: ctx.config.PR_REVIEW_CONSUMER_GROUP, processed });
      ctx.onShutdown(() => consumer.stop(), 'automations.dispatch consumer');
    },
  });
}
