import { clampLimit, ok, parseQuery, type Router, pathParam } from '@ars/http-app';
import { REPO_LIMIT } from '../domain/repos.js';
import type { CatalogDeps } from './deps.js';
import { toRepo } from './repoView.js';

// `limit` is left to clampLimit (one rule everywhere: any integer clamped, however large).
const parseListQuery = parseQuery<{ q?: string; limit?: unknown }>({
  type: 'object',
  properties: { q: { type: 'string', maxLength: 200 }, limit: {} },
});

/** `GET /internal/users/:userId/repos?q=&limit=` → `{repos}` by `full_name`; `q` any case; `limit` clamped to 1–200. */
export function listRepos(router: Router, deps: CatalogDeps): void {
  router.get('/users/:userId/repos', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const query = parseListQuery(ctx.query);
    const limit = clampLimit(query.limit, REPO_LIMIT);
    const repos = await deps.access.reposOf(userId, { q: query.q, limit });
    ok(ctx, { repos: repos.map(toRepo) });
  });
}
