import { Router, requireInternalCaller } from '@ars/http-app';
import { createAutomation } from './createAutomation.js';
import type { AutomationsDeps } from './deps.js';
import { getAutomation } from './getAutomation.js';
import { listAutomations } from './listAutomations.js';
import { publishAutomation } from './publishAutomation.js';
import { setNodeModel } from './setNodeModel.js';
import { updateAutomation } from './updateAutomation.js';
import { validateAutomation } from './validateAutomation.js';

/** The automations engine's internal API: everything under `/internal`, behind the internal token. */
export function automationsRoutes(deps: AutomationsDeps, internalToken: string): Router {
  const router = new Router({ prefix: '/internal' });
  router.use(requireInternalCaller(internalToken));
  listAutomations(router, deps);
  createAutomation(router, deps);
  getAutomation(router, deps);
  updateAutomation(router, deps);
  publishAutomation(router, deps);
  setNodeModel(router, deps);
  validateAutomation(router, deps);
  return router;
}
