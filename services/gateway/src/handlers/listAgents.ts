import type { Agent } from '@ars/contract';
import type { Gateway } from '../deps.js';
import type { RouteHandler } from './routeCall.js';

/** CONTRACT.md, Agent: exactly these fields, whatever else the catalog adds. */
export function toAgent(agent: Agent): Agent {
  return {
    id: agent.id,
    name: agent.name,
    slug: agent.slug,
    model: agent.model,
    description: agent.description,
    category: agent.category,
    preset: agent.preset,
  };
}

/** GET /agents: the caller's own agents, then the presets (from the catalog). */
export function listAgents(gateway: Gateway): RouteHandler {
  return async ({ principal }) => {
    const agents = await gateway.catalog.listAgents(principal.userId);
    return { agents: agents.map(toAgent) };
  };
}
