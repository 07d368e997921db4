import { AppError } from '@ars/errors';
import { ok, type RouterMiddleware } from '@ars/http-app';
import type { Gateway } from '../deps.js';
import { describePersonalAccessToken } from './listPersonalAccessTokens.js';
import { sessionPrincipalOf } from '../auth/sessionAuth.js';

/** DELETE /api/settings/api-keys/:id: sets `revokedAt` (idempotent); another user's token is 404. */
export function revokePersonalAccessToken(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const { userId } = sessionPrincipalOf(ctx.state);
    const token = await gateway.personalAccessTokens.revoke(userId, String(ctx.params.id));
    if (!token) throw AppError.notFound('API key not found');
    ok(ctx, { apiKey: describePersonalAccessToken(token) });
  };
}
