import { Router, requireInternalCaller } from '@ars/http-app';
import { cancelRun } from './cancelRun.js';
import type { RunsDeps } from './deps.js';
import { getRun } from './getRun.js';
import { listRunEvents } from './listRunEvents.js';
import { startRun } from './startRun.js';

/** The runs service's internal API: everything under `/internal`, behind the internal token. */
export function runsRoutes(deps: RunsDeps, internalToken: string): Router {
  const router = new Router({ prefix: '/internal' });
  router.use(requireInternalCaller(internalToken));
  startRun(router, deps);
  getRun(router, deps);
  listRunEvents(router, deps);
  cancelRun(router, deps);
  return router;
}
