import { clampLimit, ok, parseQuery, type Router } from '@ars/http-app';
import { toSandbox } from '../domain/sandboxView.js';
import type { LifecycleDeps } from '../lifecycle/deps.js';
import { pathParam } from './params.js';

/** CONTRACT.md, Limits: sandboxes `limit` 1 to 200, default 100; outside values are clamped. */
export const SANDBOXES_LIMIT = { min: 1, max: 200, default: 100 } as const;

const parseFilters = parseQuery<{ repo_id?: string; status?: string }>({
  type: 'object',
  properties: { repo_id: { type: 'string', maxLength: 200 }, status: { type: 'string', maxLength: 100 }, limit: {} },
});

/** `GET /internal/users/:userId/sandboxes?repo_id=&status=&limit=` → `{sandboxes}`, the caller's, newest first. */
export function listSandboxesRoute(router: Router, deps: LifecycleDeps): void {
  router.get('/users/:userId/sandboxes', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const limit = clampLimit(ctx.query.limit, SANDBOXES_LIMIT);
    const filters = parseFilters(ctx.query);
    const docs = await deps.sandboxRecords.list(userId, {
      limit,
      ...(filters.repo_id !== undefined ? { repoId: filters.repo_id } : {}),
      ...(filters.status !== undefined ? { status: filters.status } : {}),
    });
    ok(ctx, { sandboxes: docs.map(toSandbox) });
  });
}
