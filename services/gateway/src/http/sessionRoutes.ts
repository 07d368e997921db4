import { Router } from '@ars/http-app';
import type { Gateway } from '../deps.js';
import { createPersonalAccessToken } from './createPersonalAccessToken.js';
import { createDevAccount } from './createDevAccount.js';
import { currentSession } from './currentSession.js';
import { listPersonalAccessTokens } from './listPersonalAccessTokens.js';
import { logout } from './logout.js';
import { deleteMcpServer, listMcpServerSettings, putMcpServer } from './mcpServerSettings.js';
import { openDevPullRequest } from './openDevPullRequest.js';
import { revokePersonalAccessToken } from './revokePersonalAccessToken.js';
import { revokeCurrentPersonalAccessToken } from './revokeCurrentPersonalAccessToken.js';
import { authenticateToken } from '../auth/authenticateToken.js';
import { checkOrigin, requireSession } from '../auth/sessionAuth.js';
import '../auth/state.js';

/**
 * The internal, unversioned `/api/*` routes of the web app (not part of the public contract):
 * session, PAT lifecycle and tool server settings (session only; a PAT's self-revocation is its bearer's), and outside production the development account route.
 */
export function sessionRoutes(gateway: Gateway): Router {
  const router = new Router({ prefix: '/api' });
  const session = requireSession(gateway);
  const origin = checkOrigin(gateway);
  router.get('/session', session, currentSession());
  router.post('/session/logout', origin, logout(gateway));
  router.get('/settings/api-keys', session, listPersonalAccessTokens(gateway));
  router.post('/settings/api-keys', session, origin, createPersonalAccessToken(gateway));
  // Before `/:id`: `current` is the PAT's own self-revocation (bearer only), never a session route.
  router.delete('/settings/api-keys/current', authenticateToken(gateway), revokeCurrentPersonalAccessToken(gateway));
  router.delete('/settings/api-keys/:id', session, origin, revokePersonalAccessToken(gateway));
  const toolServerSession = requireSession(gateway, 'Personal access tokens cannot manage tool server settings; sign in with a browser session');
  router.get('/settings/mcp-servers', toolServerSession, listMcpServerSettings(gateway));
  router.put('/settings/mcp-servers/:name', toolServerSession, origin, putMcpServer(gateway));
  router.delete('/settings/mcp-servers/:name', toolServerSession, origin, deleteMcpServer(gateway));
  if (!gateway.production) {
    router.post('/dev/accounts', origin, createDevAccount(gateway));
    router.post('/dev/pull-requests', session, origin, openDevPullRequest(gateway));
  }
  return router;
}
