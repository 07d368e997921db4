// The repositories an installation token reaches: `GET /installation/repositories` and `GET /repos/{o}/{r}`.
import type { Answer } from '../httpAnswer.js';
import { repositoryJson } from '../json.js';
import { page, reachableRepository, type Route, type RouteContext } from '../route.js';

async function listInstallationRepositories(_params: string[], context: RouteContext): Promise<Answer> {
  const all = context.state.installations.get(context.installationId()) ?? [];
  const { items, headers } = page(context, all);
  return {
    status: 200,
    body: { total_count: all.length, repository_selection: 'selected', repositories: items.map((hosted) => repositoryJson(context.state.baseUrl, hosted)) },
    headers,
  };
}

async function getRepository(params: string[], context: RouteContext): Promise<Answer> {
  return { status: 200, body: repositoryJson(context.state.baseUrl, reachableRepository(params, context)) };
}

export const repositoryRoutes: Route[] = [
  ['GET', /^\/installation\/repositories$/, listInstallationRepositories],
  ['GET', /^\/repos\/([^/]+)\/([^/]+)$/, getRepository],
];
