// One way to run a public route, whoever asks: the REST surface (a Koa request) and the MCP tools
// (a tool call's arguments) build the same RouteCall and run the same handler, so scope, tenancy,
// limits and idempotency cannot drift between them.
import { IDEMPOTENCY_KEY_HEADER } from '@ars/contract';
import { ok, type RouterMiddleware } from '@ars/http-app';
import type { PublicRoute } from '../domain/routeTable.js';
import { principalOf } from './authenticateToken.js';
import { requestBody } from './requestBody.js';
import type { Principal } from './state.js';

export interface RouteCall {
  principal: Principal;
  /** The route's path parameters (`:runId` → `runId`). */
  params: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (undefined without one). */
  body: unknown;
  /** `Idempotency-Key`, as sent (checked by the routes that require it). */
  idempotencyKey: string | undefined;
}

/** A route's work: the data of its success answer (its status is the route's `successStatus`), or a thrown AppError. */
export type RouteHandler = (call: RouteCall) => Promise<unknown>;

/** The REST side: the call from the Koa request (authenticated, limited, scoped and parsed before), the answer in the envelope. */
export function restRoute(route: PublicRoute, handler: RouteHandler): RouterMiddleware {
  return async (ctx) => {
    const data = await handler({
      principal: principalOf(ctx.state),
      params: ctx.params,
      query: ctx.query,
      body: requestBody(ctx),
      idempotencyKey: ctx.get(IDEMPOTENCY_KEY_HEADER) || undefined,
    });
    ok(ctx, data, route.successStatus);
  };
}
