import type { PublicRoute } from '../domain/routeTable.js';
import type { Peer } from '../peers.js';
import type { Gateway } from '../deps.js';
import { forwardToOwner } from './forwardToOwner.js';
import { listAgents } from './listAgents.js';
import { listModels } from './listModels.js';
import { listRepos } from './listRepos.js';
import type { RouteHandler } from './routeCall.js';
import { startRun } from './startRun.js';

/**
 * The work of a route of the contract's API (not the MCP transport's own): the gateway's own for
 * the routes where it does more than forward, else forwarding to the owner. REST and the MCP tools
 * both run it (routeCall.ts).
 */
export function routeHandler(gateway: Gateway, route: PublicRoute): RouteHandler {
  const key = `${route.method} ${route.path}`;
  switch (key) {
    case 'GET /repos':
      return listRepos(gateway);
    case 'GET /agents':
      return listAgents(gateway);
    case 'GET /models':
      return listModels(gateway);
    case 'POST /runs':
      return startRun(gateway, route);
    default:
      if (route.owner === 'gateway') throw new Error(`no handler for the gateway's own route ${key}`);
      return forwardToOwner(gateway, route as PublicRoute & { owner: Peer });
  }
}
