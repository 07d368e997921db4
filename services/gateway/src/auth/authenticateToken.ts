import { AppError } from '@ars/errors';
import type { Middleware } from '@ars/http-app';
import { hashToken, isWellFormedToken } from '../domain/personalAccessTokens.js';
import { missingScopeMessage, type Scope } from '../domain/scopes.js';
import type { Gateway } from '../deps.js';
import type { Principal } from './state.js';
import { TOKEN_USE_RESOLUTION_MS, type PersonalAccessTokenDocument } from '../store/personalAccessTokens.js';

/**
 * CONTRACT.md, Authentication 8: no header → 401; a header that is not `Bearer tok_…` → 401; a token
 * that is unknown, expired or revoked → 401 saying which. Read from MongoDB: a revocation or an
 * expiry applies to the very next request. Messages only describe the token the caller holds:
 * nothing tells whether some other token or user exists.
 */
export async function resolveBearer(gateway: Gateway, authorization: string | undefined, now = new Date()): Promise<Principal> {
  const tokenHash = hashToken(bearerToken(authorization));
  const token = checkedToken(await storedToken(gateway, tokenHash), now);
  notePatUse(gateway, token, now);
  return principalOfToken(token);
}

/** A PAT resolved for the public routes: kept in this gateway (`patCache`) or read; with its hash. */
export interface ResolvedPat {
  principal: Principal;
  token: PersonalAccessTokenDocument;
  tokenHash: string;
  /** Taken from the gateway's cache: its revocation is known only once its mark has been looked at. */
  kept: boolean;
}

/**
 * `resolveBearer` through the gateway's cache of PATs. A kept PAT is checked for expiry here, but
 * its revocation only by its mark, in the per-PAT limit's round trip (handlers/rateLimits.ts
 * `authenticateAndLimitPat`, the one caller): a kept PAT must never be admitted without it.
 */
export async function resolvePatKept(gateway: Gateway, authorization: string | undefined, now = new Date()): Promise<ResolvedPat> {
  const tokenHash = hashToken(bearerToken(authorization));
  const kept = gateway.patCache.get(tokenHash);
  if (kept) return { principal: principalOfToken(checkedToken(kept, now)), token: kept, tokenHash, kept: true };
  const token = checkedToken(await storedToken(gateway, tokenHash), now);
  gateway.patCache.keep(tokenHash, token);
  return { principal: principalOfToken(token), token, tokenHash, kept: false };
}

function bearerToken(authorization: string | undefined): string {
  if (!authorization) throw AppError.unauthorized('Missing Authorization header; send Authorization: Bearer <token>');
  const match = /^Bearer +(\S+) *$/i.exec(authorization);
  const token = match?.[1];
  if (!token || !isWellFormedToken(token)) {
    throw AppError.unauthorized('Malformed access token; expected Authorization: Bearer tok_ followed by 32 base62 characters');
  }
  return token;
}

async function storedToken(gateway: Gateway, tokenHash: string): Promise<PersonalAccessTokenDocument | undefined> {
  try {
    return await gateway.personalAccessTokens.findByHash(tokenHash);
  } catch (error) {
    gateway.logger.error({ err: error }, 'token lookup failed');
    throw AppError.unavailable('Token store unavailable; retry shortly');
  }
}

function checkedToken(record: PersonalAccessTokenDocument | undefined, now: Date): PersonalAccessTokenDocument {
  if (!record) throw AppError.unauthorized('Invalid access token');
  if (record.revokedAt) throw AppError.unauthorized(REVOKED_TOKEN);
  if (record.expiresAt && record.expiresAt.getTime() <= now.getTime()) throw AppError.unauthorized('Access token has expired');
  return record;
}

export const REVOKED_TOKEN = 'Access token has been revoked';

function principalOfToken(record: PersonalAccessTokenDocument): Principal {
  return { userId: record.userId, tokenId: record._id, scopes: record.scopes };
}

/** The settings page's "last used", kept to the minute without a write per request; a failed write costs the request nothing. */
export function notePatUse(gateway: Gateway, record: PersonalAccessTokenDocument, now: Date = new Date()): void {
  if (record.lastUsedAt && now.getTime() - record.lastUsedAt.getTime() < TOKEN_USE_RESOLUTION_MS) return;
  // A kept PAT is this very object: its next requests see the use and write nothing for a minute.
  record.lastUsedAt = now;
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

/** CONTRACT.md, Authentication 7: 403 naming the scope (and `write`) when the principal lacks it (the REST chain and the MCP tools alike). */
export function assertScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.includes(scope)) throw AppError.forbidden(missingScopeMessage(scope));
}

export function principalOf(state: { principal?: Principal }): Principal {
  if (!state.principal) throw AppError.internal('route reached without authentication');
  return state.principal;
}
