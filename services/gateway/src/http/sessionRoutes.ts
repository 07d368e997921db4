import { Router } from '@ars/http-app';
import type { Gateway } from './deps.js';
import { createApiKey } from './createApiKey.js';
import { createDevAccount } from './createDevAccount.js';
import { currentSession } from './currentSession.js';
import { listApiKeys } from './listApiKeys.js';
import { logout } from './logout.js';
import { openDevPullRequest } from './openDevPullRequest.js';
import { revokeApiKey } from './revokeApiKey.js';
import { checkOrigin, requireSession } from './sessionAuth.js';
import './state.js';

/**
 * The internal, unversioned `/api/*` routes of the web app (not part of the public contract):
 * session, PAT lifecycle (session only), and outside production the development account route.
 */
export function sessionRoutes(gateway: Gateway): Router {
  const router = new Router({ prefix: '/api' });
  const session = requireSession(gateway);
  const origin = checkOrigin(gateway);
  router.get('/session', session, currentSession());
  router.post('/session/logout', origin, logout(gateway));
  router.get('/settings/api-keys', session, listApiKeys(gateway));
  router.post('/settings/api-keys', session, origin, createApiKey(gateway));
  router.delete('/settings/api-keys/:id', session, origin, revokeApiKey(gateway));
  if (!gateway.production) {
    router.post('/dev/accounts', origin, createDevAccount(gateway));
    router.post('/dev/pull-requests', session, origin, openDevPullRequest(gateway));
  }
  return router;
}
