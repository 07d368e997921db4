import { ok, type RouterMiddleware } from '@ars/http-app';
import type { Gateway } from '../deps.js';
import { clearSessionCookie, sessionOf } from '../auth/sessionAuth.js';

/** POST /api/session/logout: the session is deleted (its cookie no longer works anywhere) and the cookie cleared. */
export function logout(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const session = await sessionOf(gateway, ctx);
    if (session) await gateway.browserSessions.remove(session.idHash);
    clearSessionCookie(gateway, ctx);
    ok(ctx, { loggedOut: true });
  };
}
