import { Router, requireInternalCaller } from '@ars/http-app';
import type { SessionDeps } from '../sessions/deps.js';
import { cancelRunRoute } from './cancelRun.js';

/** Every route of the service is internal: `/internal/…` behind the shared token. */
export function sandboxesRoutes(deps: SessionDeps, internalToken: string): Router {
  const router = new Router({ prefix: '/internal' });
  router.use(requireInternalCaller(internalToken));
  cancelRunRoute(router, deps);
  return router;
}
