import { timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { AppError } from '@ars/errors';

export const INTERNAL_TOKEN_HEADER = 'X-Internal-Token';
export const CALLER_SERVICE_HEADER = 'X-Caller-Service';

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Guards internal routes: the request must carry `X-Internal-Token` equal to `token`, else 401
 * UNAUTHORIZED. Records `X-Caller-Service` as `ctx.state.caller` (also in the access log).
 */
export function requireInternalCaller(token: string): Middleware {
  if (!token) throw new Error('requireInternalCaller needs a non-empty token');
  return async (ctx, next) => {
    const given = ctx.get(INTERNAL_TOKEN_HEADER);
    if (!given || !sameSecret(given, token)) {
      throw AppError.unauthorized('Missing or invalid internal token');
    }
    const caller = ctx.get(CALLER_SERVICE_HEADER);
    if (caller) ctx.state.caller = caller.slice(0, 64);
    await next();
  };
}
