import { ok, type RouterMiddleware } from '@ars/http-app';
import { sessionPrincipalOf } from '../auth/sessionAuth.js';

/** GET /api/session → `{userId, expiresAt}` of the live session. */
export function currentSession(): RouterMiddleware {
  return (ctx) => {
    const session = sessionPrincipalOf(ctx.state);
    ok(ctx, { userId: session.userId, expiresAt: session.expiresAt.toISOString() });
  };
}
