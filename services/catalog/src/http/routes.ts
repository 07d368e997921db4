import { Router, requireInternalCaller } from '@ars/http-app';
import { createAgent } from './createAgent.js';
import { createDevInstallation } from './createDevInstallation.js';
import type { CatalogDeps } from './deps.js';
import { findHostRepo } from './findHostRepo.js';
import { getAgent } from './getAgent.js';
import { gitHubConnection } from './gitHubConnection.js';
import { gitHubDeliveries } from './gitHubDeliveries.js';
import { getInstallation } from './getInstallation.js';
import { getRepo } from './getRepo.js';
import { listAgents } from './listAgents.js';
import { listModels } from './listModels.js';
import { listRepos } from './listRepos.js';
import { modelSettings } from './modelSettings.js';
import { repoAccess } from './repoAccess.js';

/** The catalog's internal API: everything under `/internal`, behind the internal token. */
export function catalogRoutes(deps: CatalogDeps, internalToken: string): Router {
  const router = new Router({ prefix: '/internal' });
  router.use(requireInternalCaller(internalToken));
  listRepos(router, deps);
  getRepo(router, deps);
  repoAccess(router, deps);
  findHostRepo(router, deps);
  getInstallation(router, deps);
  gitHubConnection(router, deps);
  gitHubDeliveries(router, deps);
  listAgents(router, deps);
  getAgent(router, deps);
  createAgent(router, deps);
  listModels(router, deps);
  modelSettings(router, deps);
  createDevInstallation(router, deps);
  return router;
}
