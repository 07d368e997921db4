import { ok, type Router, pathParam } from '@ars/http-app';
import { PRESET_AGENTS } from '../domain/agents.js';
import type { CatalogDeps } from './deps.js';
import { toAgent } from './agentView.js';

/** `GET /internal/users/:userId/agents` → `{agents}`: the user's own (oldest first), then the presets. */
export function listAgents(router: Router, deps: CatalogDeps): void {
  router.get('/users/:userId/agents', async (ctx) => {
    const owned = await deps.agents.list(pathParam(ctx, 'userId'));
    ok(ctx, { agents: [...owned.map(toAgent), ...PRESET_AGENTS] });
  });
}
