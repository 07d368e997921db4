import { carriesJsonBody, Router, type Middleware, type RouterMiddleware } from '@ars/http-app';
import { PUBLIC_PREFIX, PUBLIC_ROUTES, type PublicRoute } from '../domain/routeTable.js';
import type { Gateway } from '../deps.js';
import { parseJsonBody } from './jsonBody.js';
import { mcpGet, mcpPost, mcpPreflight } from './mcpTransport.js';
import { openApiDocumentRoute } from './openApiDocument.js';
import { authenticateAndLimitPat } from '../handlers/rateLimits.js';
import { restRoute } from './restRoute.js';
import { routeHandler } from '../handlers/routeHandler.js';
import { runEventsRoute } from './runEventStream.js';
import '../auth/state.js';

function handlerFor(gateway: Gateway, route: PublicRoute): RouterMiddleware {
  switch (`${route.method} ${route.path}`) {
    case 'POST /mcp':
      return mcpPost(gateway);
    case 'OPTIONS /mcp':
      return mcpPreflight(gateway);
    case 'GET /mcp':
      return mcpGet();
    case 'GET /openapi.json':
      return openApiDocumentRoute();
    case 'GET /runs/:runId/events':
      return runEventsRoute(gateway, route, restRoute(route, routeHandler(gateway, route)));
    default:
      return restRoute(route, routeHandler(gateway, route));
  }
}

/**
 * Every route of the contract's index under `/api/v1/svc`, each behind the same chain: authenticate
 * the PAT (401) → per-PAT limit (429/503) → scope (403) → JSON body (400; methods that carry one)
 * → the route. Routes whose owner is not built yet are forwarded like the others (the owner answers
 * 404 in the envelope).
 */
export function publicRoutes(gateway: Gateway): Router {
  const router = new Router({ prefix: PUBLIC_PREFIX });
  const authenticateAndLimit = { read: authenticateAndLimitPat(gateway, 'read'), write: authenticateAndLimitPat(gateway, 'write') };
  const jsonBody = parseJsonBody();
  for (const route of PUBLIC_ROUTES) {
    const chain: Middleware[] = [];
    if (route.auth === 'read' || route.auth === 'write') {
      chain.push(authenticateAndLimit[route.auth]);
      // A GET's body is never read (parseJsonBody passes it by): no layer for it on every request.
      if (carriesJsonBody(route.method)) chain.push(jsonBody);
    }
    router.register(route.path, [route.method], [...chain, handlerFor(gateway, route)] as RouterMiddleware[]);
  }
  return router;
}
