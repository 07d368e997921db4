import { createHash } from 'node:crypto';
import { AppError } from '@ars/errors';
import type { Middleware } from '@ars/http-app';
import {
  LIMITER_UNAVAILABLE,
  PER_TOKEN_EXCEEDED,
  RETRY_AFTER_SECONDS,
  REVOCATION_EPOCH_KEY,
  perTokenWindow,
  revocationMarkKey,
  runStartExceededMessage,
  runStartWindows,
} from '../domain/limits.js';
import type { Gateway } from '../deps.js';
import type { ConsumeResult, GuardedConsumeResult, RateLimiter, RateWindow } from '../store/rateLimiter.js';
import { REVOKED_TOKEN, assertScope, notePatUse, principalOf, resolveBearer, resolvePatKept } from '../auth/authenticateToken.js';
import type { Scope } from '../domain/scopes.js';

/** Redis unreachable fails closed: 503 with `Retry-After: 60`, never an unlimited pass. */
async function consumeOrUnavailable(gateway: Gateway, windows: readonly RateWindow[], member?: string): Promise<ConsumeResult> {
  try {
    return await gateway.limiter.consume(windows, member);
  } catch (error) {
    gateway.logger.warn({ err: error }, 'rate-limit backend unavailable');
    throw AppError.unavailable(LIMITER_UNAVAILABLE, RETRY_AFTER_SECONDS);
  }
}

/**
 * The public routes' first three steps: the PAT (401), its per-PAT limit (429/503), then the route's
 * scope (403). The PAT may come from this gateway's cache; its revocation mark is read in the
 * limit's own Redis round trip, so a PAT revoked through any gateway is refused at its very next
 * request here, and a Redis that lost its marks (a new epoch) sends every kept PAT back to MongoDB.
 * A request refused 401 counts against nothing, as before. One middleware, not three: each layer
 * of the chain costs every request its own promises (issue 33).
 */
export function authenticateAndLimitPat(gateway: Gateway, scope: Scope): Middleware {
  return async (ctx, next) => {
    const authorization = ctx.get('Authorization') || undefined;
    let resolved = await resolvePatKept(gateway, authorization);
    const result = await consumeGuardedOrUnavailable(gateway, resolved.principal.tokenId);
    if ('marked' in result) {
      gateway.patCache.forget(resolved.tokenHash);
      throw AppError.unauthorized(REVOKED_TOKEN);
    }
    if (!gateway.patCache.sameEpoch(result.epoch) && resolved.kept) {
      // Kept under marks Redis no longer holds: what MongoDB says now decides.
      resolved = { ...resolved, principal: await resolveBearer(gateway, authorization), kept: false };
    } else {
      notePatUse(gateway, resolved.token);
    }
    if (!result.allowed) throw AppError.rateLimited(PER_TOKEN_EXCEEDED, RETRY_AFTER_SECONDS);
    assertScope(resolved.principal, scope);
    ctx.state.principal = resolved.principal;
    await next();
  };
}

async function consumeGuardedOrUnavailable(gateway: Gateway, tokenId: string): Promise<GuardedConsumeResult> {
  try {
    return await gateway.limiter.consumeGuarded([perTokenWindow(tokenId)], { markKey: revocationMarkKey(tokenId), epochKey: REVOCATION_EPOCH_KEY });
  } catch (error) {
    gateway.logger.warn({ err: error }, 'rate-limit backend unavailable');
    throw AppError.unavailable(LIMITER_UNAVAILABLE, RETRY_AFTER_SECONDS);
  }
}

/** 60 requests per rolling 60 s per PAT, on every request with it (after authentication, before the route). */
export function limitPerPat(gateway: Gateway): Middleware {
  return async (ctx, next) => {
    const result = await consumeOrUnavailable(gateway, [perTokenWindow(principalOf(ctx.state).tokenId)]);
    if (!result.allowed) throw AppError.rateLimited(PER_TOKEN_EXCEEDED, RETRY_AFTER_SECONDS);
    await next();
  };
}

export interface RunStartReservation {
  /** Gives the start back to the budget (a replay, or runs refused the start). */
  refund(): Promise<void>;
}

/**
 * The user's run-start budget (10/min, 30/h, 150/day across all PATs): reserved before runs is asked,
 * keyed by the idempotency key, so identical starts racing (one run, the rest replays) take one place
 * and a replay of a start still in the window takes none. Only the request that took a place gives
 * it back.
 */
export async function reserveRunStart(
  gateway: Gateway,
  userId: string,
  idempotencyKey: string,
  limiter: RateLimiter = gateway.limiter,
): Promise<RunStartReservation> {
  const windows = runStartWindows(userId);
  const result = await consumeOrUnavailable(gateway, windows, runStartMember(idempotencyKey));
  if (!result.allowed) throw AppError.rateLimited(runStartExceededMessage(result.exceededKey), RETRY_AFTER_SECONDS);
  return {
    async refund() {
      try {
        await limiter.refund(result.added, result.reservation);
      } catch (error) {
        // The reservation then lapses with its window; the start was refused either way.
        gateway.logger.warn({ err: error, userId }, 'run-start refund failed');
      }
    },
  };
}

/** The budget entry of one start: the key's hash (keys are per user, and so are the windows). */
function runStartMember(idempotencyKey: string): string {
  return `key:${createHash('sha256').update(idempotencyKey, 'utf8').digest('base64url')}`;
}
