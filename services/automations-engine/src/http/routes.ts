import { Router, requireInternalCaller } from '@ars/http-app';
import { cancelAutomationRun, getAutomationRun, listAutomationRuns, releaseAutomationRun, setReviewFindings } from './automationRuns.js';
import { createAutomation } from './createAutomation.js';
import type { AutomationsDeps } from './deps.js';
import { getAutomation } from './getAutomation.js';
import { listAutomations } from './listAutomations.js';
import { publishAutomation } from './publishAutomation.js';
import { sendAutomationEvent } from './sendAutomationEvent.js';
import { setNodeModel } from './setNodeModel.js';
import { triggerAutomation } from './triggerAutomation.js';
import { updateAutomation } from './updateAutomation.js';
import { validateAutomation } from './validateAutomation.js';

/** The automations engine's internal API: everything under `/internal`, behind the internal token. */
export function automationsRoutes(deps: AutomationsDeps, internalToken: string): Router {
  const router = new Router({ prefix: '/internal' });
  router.use(requireInternalCaller(internalToken));
  listAutomations(router, deps);
  // Before `/automations/:automationId…`: `events` is not an automation id.
  sendAutomationEvent(router, deps);
  createAutomation(router, deps);
  getAutomation(router, deps);
  updateAutomation(router, deps);
  publishAutomation(router, deps);
  setNodeModel(router, deps);
  validateAutomation(router, deps);
  triggerAutomation(router, deps);
  listAutomationRuns(router, deps);
  getAutomationRun(router, deps);
  cancelAutomationRun(router, deps);
  setReviewFindings(router, deps);
  releaseAutomationRun(router, deps);
  return router;
}
