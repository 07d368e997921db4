import { ok, type RouterMiddleware } from '@ars/http-app';
import type { Gateway } from '../deps.js';
import type { PersonalAccessTokenDocument } from '../store/personalAccessTokens.js';
import { sessionPrincipalOf } from '../auth/sessionAuth.js';

/** A token as listed: never the plaintext or the hash. */
export function describePersonalAccessToken(token: PersonalAccessTokenDocument) {
  return {
    id: token._id,
    name: token.name,
    prefix: token.prefix,
    scopes: token.scopes,
    createdAt: token.createdAt.toISOString(),
    expiresAt: token.expiresAt?.toISOString() ?? null,
    revokedAt: token.revokedAt?.toISOString() ?? null,
    lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
  };
}

/** GET /api/settings/api-keys → `{apiKeys: [...]}`, newest first, the session user's only. */
export function listPersonalAccessTokens(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const { userId } = sessionPrincipalOf(ctx.state);
    ok(ctx, { apiKeys: (await gateway.personalAccessTokens.listForUser(userId)).map(describePersonalAccessToken) });
  };
}
