import { exitOnConfigError, type EnvSource } from '@ars/config';
import type { Logger } from '@ars/logger';
import { SecretBox, resealInBackground } from '@ars/secret-box';
import { runService, type RunningService } from '@ars/service';
import { GitHubAppSourceHost, LocalSourceHost } from '@ars/source-host';
import { CATALOG_PORT, catalogConfigSchema, catalogConfiguration, loadCatalogSettings, type CatalogSettings } from './config.js';
import type { CatalogDeps } from './http/deps.js';
import { catalogRoutes } from './http/routes.js';
import { AgentStore } from './store/agents.js';
import { CATALOG_INDEXES } from './store/collections.js';
import { gitHubUserApi } from './sourceHost/gitHubUserApi.js';
import { AccessStore } from './store/access.js';
import { GitHubLinkStore } from './store/githubLinks.js';
import { InstallationStore } from './store/installations.js';
import { adoptLegacyOwners } from './store/legacyOwners.js';
import { ModelSettingsStore } from './store/modelSettings.js';
import { RepoStore } from './store/repos.js';

export { CATALOG_PORT };

export interface CatalogRuntime {
  env?: EnvSource;
  handleSignals?: boolean;
  exit?: (code: number) => void;
  logger?: Logger;
}

export type RunningCatalog = RunningService<typeof catalogConfigSchema, CatalogDeps>;

/** Starts the catalog: `main.ts` with process defaults; tests in-process with `handleSignals: false`. */
export async function startCatalog(runtime: CatalogRuntime = {}): Promise<RunningCatalog> {
  const source = runtime.env ?? process.env;
  let settings: CatalogSettings;
  try {
    settings = loadCatalogSettings(source);
  } catch (error) {
    if (runtime.handleSignals === false) throw error;
    return exitOnConfigError(error);
  }

  return runService({
    ...catalogConfiguration,
    indexes: CATALOG_INDEXES,
    runtime,
    compose: (ctx) => {
      const db = ctx.mongo?.db;
      if (!db) throw new Error('the catalog needs MongoDB');
      if (settings.developmentKey) {
        ctx.logger.warn('CATALOG_SECRETS_KEY is not set: provider keys are encrypted with the fixed development key (never use this in production)');
      }
      const box = new SecretBox(settings.keyring);
      const deps: CatalogDeps = {
        installations: new InstallationStore(db),
        repos: new RepoStore(db),
        access: new AccessStore(db),
        githubLinks: new GitHubLinkStore(db, box),
        agents: new AgentStore(db),
        modelSettings: new ModelSettingsStore(db, box),
        localHost: new LocalSourceHost(settings.sourceHostDir),
        githubHost: settings.github ? new GitHubAppSourceHost(settings.github) : undefined,
        githubUsers: settings.github ? gitHubUserApi(settings.github) : undefined,
        production: settings.environment === 'production',
        logger: ctx.logger,
      };
      ctx.logger.info(
        {
          source_host_dir: settings.sourceHostDir,
          github_app: Boolean(settings.github),
          github_rechecks: Boolean(settings.github?.client),
          environment: settings.environment,
        },
        'catalog configured',
      );
      return deps;
    },
    routes: (ctx, deps) => [catalogRoutes(deps, ctx.config.INTERNAL_TOKEN)],
    start: async (ctx, deps) => {
      const adopted = await adoptLegacyOwners(deps);
      if (adopted > 0) ctx.logger.info({ documents: adopted }, 'installations and repositories of one user moved into access records');
      // After a key rotation, provider keys sealed under the previous key move to the current one.
      const reseal = resealInBackground('provider keys', (signal) => deps.modelSettings.resealProviderKeys(signal), ctx.logger);
      ctx.onShutdown(() => reseal.stop(), 're-seal pass');
    },
  });
}
