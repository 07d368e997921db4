import { IDEMPOTENCY_KEY_HEADER, pathSegment } from '@ars/contract';
import { AppError, isAppError } from '@ars/errors';
import { clampLimit } from '@ars/http-app';
import type { RequestOptions } from '@ars/http-client';
import { idempotencyKeyProblem } from '@ars/idempotency';
import type { PublicRoute } from '../domain/routeTable.js';
import type { Gateway } from '../deps.js';
import type { Peer } from '../peers.js';
import type { RouteHandler } from './routeCall.js';

/**
 * `/runs/:runId` with the request's params → `/internal/users/<userId>/runs/<runId>`: the owner's
 * internal API, scoped to the caller. Params are re-encoded (a lone surrogate, which a tool's JSON
 * arguments can carry, as U+FFFD: pathSegment), and `.`/`..` never reach the owner.
 */
export function internalPath(route: PublicRoute, userId: string, params: Record<string, string>): string {
  const path = route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const value = params[name] ?? '';
    if (value === '' || value === '.' || value === '..') throw AppError.notFound(`No route for ${route.method} ${route.path}`);
    return pathSegment(value);
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
export function requireIdempotencyKey(key: string | undefined): string {
  const problem = idempotencyKeyProblem(key || undefined);
  if (problem) throw AppError.badRequest(problem);
  return key as string;
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

/** Forwards the call to the owner's internal API, scoped to the caller; its data is the answer's. */
export function forwardToOwner(gateway: Gateway, route: PublicRoute & { owner: Peer }): RouteHandler {
  return async (call) => {
    const headers: Record<string, string> = {};
    if (route.idempotencyKey) headers[IDEMPOTENCY_KEY_HEADER] = requireIdempotencyKey(call.idempotencyKey);
    const query = forwardedQuery(route, call.query);
    const path = internalPath(route, call.principal.userId, call.params);
    const body = route.method === 'POST' || route.method === 'PUT' ? (call.body ?? {}) : undefined;
    try {
      return await gateway.peers[route.owner].request<unknown>(route.method === 'OPTIONS' ? 'GET' : route.method, path, {
        query,
        headers,
        ...(body === undefined ? {} : { body }),
      });
    } catch (error) {
      throw publicError(route, error);
    }
  };
}
