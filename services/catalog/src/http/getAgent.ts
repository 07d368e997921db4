import { AppError } from '@ars/errors';
import { ok, type Router, pathParam } from '@ars/http-app';
import { PRESET_PREFIX, presetAgent } from '../domain/agents.js';
import type { CatalogDeps } from './deps.js';
import { toAgent } from './agentView.js';

/** `GET /internal/users/:userId/agents/:agentId` → `{agent}`: a preset, or one of the user's own; else 404. */
export function getAgent(router: Router, deps: CatalogDeps): void {
  router.get('/users/:userId/agents/:agentId', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const agentId = pathParam(ctx, 'agentId');
    if (agentId.startsWith(PRESET_PREFIX)) {
      const preset = presetAgent(agentId);
      if (!preset) throw AppError.notFound('Agent not found');
      ok(ctx, { agent: preset });
      return;
    }
    const owned = await deps.agents.findOwned(userId, agentId);
    if (!owned) throw AppError.notFound('Agent not found');
    ok(ctx, { agent: toAgent(owned) });
  });
}
