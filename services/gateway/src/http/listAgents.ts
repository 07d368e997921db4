import type { Agent } from '@ars/contract';
import { ok, type RouterMiddleware } from '@ars/http-app';
import type { Gateway } from './deps.js';
import { principalOf } from './authenticateToken.js';

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
export function listAgents(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const { userId } = principalOf(ctx.state);
    const agents = await gateway.catalog.listAgents(userId);
    ok(ctx, { agents: agents.map(toAgent) });
  };
}
