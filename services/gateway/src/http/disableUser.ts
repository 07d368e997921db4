// Offboarding: `POST /internal/admin/users/disable` `{user: <usr_… id or email>}` (the internal
// token; `npm run admin -- disable-user`, and `kubectl exec` of the gateway's disable-user command in
// a cluster). At once: the user is marked disabled (no sign-in from then on), every browser session
// ends, every PAT is revoked and every OAuth grant to an MCP client is deleted with its tokens.
import { AppError } from '@ars/errors';
import { ok, readRawBody, Router, requireInternalCaller, type RouterMiddleware } from '@ars/http-app';
import type { Gateway } from '../deps.js';

export const DISABLE_USER_PATH = '/internal/admin/users/disable';

export interface DisabledUser {
  user: { id: string; email: string | null; disabledAt: string };
  sessionsEnded: number;
  tokensRevoked: number;
  oauthGrantsRevoked: number;
}

/** Disables the user named by `idOrEmail` (an email naming several users is refused: name one by id). */
export async function disableUser(gateway: Gateway, idOrEmail: string): Promise<DisabledUser> {
  const found = await gateway.users.findByIdOrEmail(idOrEmail);
  if (found.length === 0) throw AppError.notFound(`No user ${idOrEmail}`);
  if (found.length > 1)
    throw AppError.conflict(`${found.length} users have the email ${idOrEmail}; name one by its id (${found.map((user) => user._id).join(', ')})`);
  const [target] = found;
  if (!target) throw AppError.notFound(`No user ${idOrEmail}`);
  // Disabled first, so no sign-in between the steps makes a new session.
  const user = await gateway.users.disable(target._id);
  const [sessionsEnded, tokensRevoked, oauthGrantsRevoked] = await Promise.all([
    gateway.browserSessions.removeAllOf(target._id),
    gateway.personalAccessTokens.revokeAllOf(target._id),
    gateway.oauthGrants.revokeAllOf(target._id),
  ]);
  gateway.logger.info({ user_id: target._id, sessions: sessionsEnded, tokens: tokensRevoked, oauth_grants: oauthGrantsRevoked }, 'user disabled');
  return {
    user: { id: target._id, email: target.email ?? null, disabledAt: (user?.disabledAt ?? new Date()).toISOString() },
    sessionsEnded,
    tokensRevoked,
    oauthGrantsRevoked,
  };
}

function disableRoute(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    let body: unknown;
    try {
      body = JSON.parse(await readRawBody(ctx, 4096));
    } catch {
      throw AppError.badRequest('The body must be JSON: {"user": "<usr_… id or email>"}');
    }
    const who = typeof body === 'object' && body !== null && 'user' in body ? (body as { user: unknown }).user : undefined;
    if (typeof who !== 'string' || who.trim() === '' || who.length > 320) throw AppError.badRequest('user must be a user id (usr_…) or an email');
    ok(ctx, await disableUser(gateway, who.trim()));
  };
}

/** Mounted only with an internal token (every deployment has one; production requires it). */
export function adminRoutes(gateway: Gateway): Router {
  const router = new Router();
  const token = gateway.config.INTERNAL_TOKEN;
  if (token) router.post(DISABLE_USER_PATH, requireInternalCaller(token), disableRoute(gateway));
  return router;
}
