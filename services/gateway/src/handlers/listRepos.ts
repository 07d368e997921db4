import type { Repo } from '@ars/contract';
import { clampLimit, parseQuery } from '@ars/http-app';
import type { Gateway } from '../deps.js';
import type { RouteHandler } from './routeCall.js';

const parseReposQuery = parseQuery<{ q?: string; limit?: unknown }>({
  type: 'object',
  properties: { q: { type: 'string' }, limit: {} },
});

/** CONTRACT.md, Repo: exactly these fields, whatever else the catalog adds. */
export function toRepo(repo: Repo): Repo {
  return {
    id: repo.id,
    full_name: repo.full_name,
    installation_id: repo.installation_id,
    default_branch: repo.default_branch,
    root_directory: repo.root_directory,
  };
}

/** GET /repos: the catalog's repositories of the caller (`q` substring of owner/repo, `limit` 1–200 default 100). */
export function listRepos(gateway: Gateway): RouteHandler {
  return async ({ principal, query: raw }) => {
    const query = parseReposQuery(raw);
    const limit = clampLimit(query.limit, { min: 1, max: 200, default: 100 });
    const repos = await gateway.catalog.listRepos(principal.userId, { limit, ...(query.q === undefined ? {} : { q: query.q }) });
    return { repos: repos.map(toRepo) };
  };
}
