import { Router, requireInternalCaller } from '@ars/http-app';
import type { LifecycleDeps } from '../lifecycle/deps.js';
import type { SessionDeps } from '../sessions/deps.js';
import { cancelRunRoute } from './cancelRun.js';
import { createSandboxRoute } from './createSandbox.js';
import { listSandboxesRoute } from './listSandboxes.js';
import { sandboxLogsRoute } from './sandboxLogs.js';

/** Every route of the service is internal: `/internal/…` behind the shared token (the gateway answers the public ones). */
export function sandboxesRoutes(sessions: SessionDeps, lifecycle: LifecycleDeps, internalToken: string): Router {
  const router = new Router({ prefix: '/internal' });
  router.use(requireInternalCaller(internalToken));
  cancelRunRoute(router, sessions);
  createSandboxRoute(router, lifecycle);
  listSandboxesRoute(router, lifecycle);
  sandboxLogsRoute(router, lifecycle);
  return router;
}
