import { AppError } from '@ars/errors';
import { ok, type RouterMiddleware } from '@ars/http-app';
import { principalOf } from '../auth/authenticateToken.js';
import type { Gateway } from '../deps.js';

/**
 * DELETE /api/settings/api-keys/current (after `authenticateToken`): the presenting PAT revokes
 * itself (`ars logout`), whatever its scopes; the id comes from the token, never from the request, so
 * a PAT cannot name another. A session cookie alone is no bearer: 401 like any PAT route.
 */
export function revokeCurrentPersonalAccessToken(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const { userId, tokenId } = principalOf(ctx.state);
    const token = await gateway.personalAccessTokens.revoke(userId, tokenId);
    if (!token) throw AppError.unauthorized('Invalid access token');
    ok(ctx, { revoked: true, id: token._id });
  };
}
