import { AppError } from '@ars/errors';
import type { Middleware } from '@ars/http-app';
import { hashToken, isWellFormedToken } from '../domain/personalAccessTokens.js';
import { missingScopeMessage, type Scope } from '../domain/scopes.js';
import type { Gateway } from '../deps.js';
import type { Principal } from './state.js';
import { TOKEN_USE_RESOLUTION_MS, type PersonalAccessTokenDocument } from '../store/personalAccessTokens.js';

/**
 * CONTRACT.md, Authentication 8: no header → 401; a header that is not `Bearer tok_…` → 401; a token
 * that is unknown, expired or revoked → 401 saying which. The hash is looked up on every request (no
 * cache), so a revocation or an expiry applies to the very next request. Messages only describe the
 * token the caller holds: nothing tells whether some other token or user exists.
 */
export async function resolveBearer(gateway: Gateway, authorization: string | undefined, now = new Date()): Promise<Principal> {
  if (!authorization) throw AppError.unauthorized('Missing Authorization header; send Authorization: Bearer <token>');
  const match = /^Bearer +(\S+) *$/i.exec(authorization);
  const token = match?.[1];
  if (!token || !isWellFormedToken(token)) {
    throw AppError.unauthorized('Malformed access token; expected Authorization: Bearer tok_ followed by 32 base62 characters');
  }
  let record;
  try {
    record = await gateway.personalAccessTokens.findByHash(hashToken(token));
  } catch (error) {
    gateway.logger.error({ err: error }, 'token lookup failed');
    throw AppError.unavailable('Token store unavailable; retry shortly');
  }
  if (!record) throw AppError.unauthorized('Invalid access token');
  if (record.revokedAt) throw AppError.unauthorized('Access token has been revoked');
  if (record.expiresAt && record.expiresAt.getTime() <= now.getTime()) throw AppError.unauthorized('Access token has expired');
  noteUse(gateway, record, now);
  return { userId: record.userId, tokenId: record._id, scopes: record.scopes };
}

/** The settings page's "last used", kept to the minute without a write per request; a failed write costs the request nothing. */
function noteUse(gateway: Gateway, record: PersonalAccessTokenDocument, now: Date): void {
  if (record.lastUsedAt && now.getTime() - record.lastUsedAt.getTime() < TOKEN_USE_RESOLUTION_MS) return;
  gateway.personalAccessTokens
    .markUsed(record._id, now)
    .catch((error: unknown) => gateway.logger.warn({ err: error, token_id: record._id }, 'token use not recorded'));
}

export function authenticateToken(gateway: Gateway): Middleware {
  return async (ctx, next) => {
    ctx.state.principal = await resolveBearer(gateway, ctx.get('Authorization') || undefined);
    await next();
  };
}

/** CONTRACT.md, Authentication 7: a token without the route's scope → 403 naming the scope (and `write`). */
export function requireScope(scope: Scope): Middleware {
  return async (ctx, next) => {
    assertScope(principalOf(ctx.state), scope);
    await next();
  };
}

/** 403 naming the scope when the principal lacks it (the REST chain and the MCP tools alike). */
export function assertScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.includes(scope)) throw AppError.forbidden(missingScopeMessage(scope));
}

export function principalOf(state: { principal?: Principal }): Principal {
  if (!state.principal) throw AppError.internal('route reached without authentication');
  return state.principal;
}
