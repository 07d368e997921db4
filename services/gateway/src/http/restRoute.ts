// The REST side of a route call (routeCall.ts): the call from the Koa request, the answer in the envelope.
import { IDEMPOTENCY_KEY_HEADER } from '@ars/contract';
import { ok, type RouterMiddleware } from '@ars/http-app';
import type { PublicRoute } from '../domain/routeTable.js';
import { principalOf } from '../auth/authenticateToken.js';
import { requestBody } from './requestBody.js';
import type { RouteHandler } from '../handlers/routeCall.js';

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
