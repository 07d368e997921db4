import { IDEMPOTENCY_KEY_HEADER } from '@ars/contract';
import { AppError, isAppError } from '@ars/errors';
import { clampLimit, ok, type RouterContext, type RouterMiddleware } from '@ars/http-app';
import type { RequestOptions } from '@ars/http-client';
import { idempotencyKeyProblem } from '@ars/idempotency';
import type { PublicRoute } from '../domain/routeTable.js';
import type { Gateway } from './deps.js';
import { requestBody } from './requestBody.js';
import type { Peer } from '../peers.js';
import { principalOf } from './authenticateToken.js';

/**
 * `/runs/:runId` with the request's params → `/internal/users/<userId>/runs/<runId>`: the owner's
 * internal API, scoped to the caller. Params are re-encoded, and `.`/`..` never reach the owner.
 */
export function internalPath(route: PublicRoute, userId: string, params: Record<string, string>): string {
  const path = route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name] ?? '';
    if (value === '' || value === '.' || value === '..') throw AppError.notFound(`No route for ${route.method} ${route.path}`);
    return encodeURIComponent(value);
  });
  return `/internal/users/${encodeURIComponent(userId)}${path}`;
}

/** The query forwarded: every parameter as sent, `limit` validated and clamped. */
export function forwardedQuery(route: PublicRoute, query: Record<string, string | string[] | undefined>): NonNullable<RequestOptions['query']> {
  const out: NonNullable<RequestOptions['query']> = {};
  for (const [key, value] of Object.entries(query)) if (value !== undefined && key !== 'limit') out[key] = value;
  if (route.limit) out.limit = clampLimit(query.limit, route.limit);
  return out;
}

/** `Idempotency-Key` where the contract requires it: 400 when missing or over 200 characters. */
export function requireIdempotencyKey(ctx: RouterContext): string {
  const key = ctx.get(IDEMPOTENCY_KEY_HEADER);
  const problem = idempotencyKeyProblem(key || undefined);
  if (problem) throw AppError.badRequest(problem);
  return key;
}

/**
 * A peer's "no such route" (its internal API does not have this yet) is reported without naming the
 * internal path; every other answer of the owner passes through with its own code and message.
 */
export function publicError(route: PublicRoute, error: unknown): unknown {
  if (isAppError(error) && error.code === 'NOT_FOUND' && error.message.startsWith('No route for ')) {
    return AppError.notFound(`${route.method} ${route.path} is not available yet`);
  }
  return error;
}

/** Forwards the request to the owner's internal API and answers with the contract's success status. */
export function forwardToOwner(gateway: Gateway, route: PublicRoute & { owner: Peer }): RouterMiddleware {
  return async (ctx) => {
    const { userId } = principalOf(ctx.state);
    const headers: Record<string, string> = {};
    if (route.idempotencyKey) headers[IDEMPOTENCY_KEY_HEADER] = requireIdempotencyKey(ctx);
    const query = forwardedQuery(route, ctx.query);
    const path = internalPath(route, userId, ctx.params);
    const body = route.method === 'POST' || route.method === 'PUT' ? (requestBody(ctx) ?? {}) : undefined;
    try {
      const data = await gateway.peers[route.owner].request<unknown>(route.method === 'OPTIONS' ? 'GET' : route.method, path, {
        query,
        headers,
        ...(body === undefined ? {} : { body }),
      });
      ok(ctx, data, route.successStatus);
    } catch (error) {
      throw publicError(route, error);
    }
  };
}
