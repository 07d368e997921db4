import { AppError } from '@ars/errors';
import { ok, type Router, pathParam } from '@ars/http-app';
import type { CatalogDeps } from './deps.js';

/** The repository a source host's delivery is about, and the user its work runs as (pr-review's webhooks). */
export interface HostRepo {
  userId: string;
  repoId: string;
  installationId: number;
}

/**
 * `GET /internal/source-hosts/github/installations/:externalId/repos/:owner/:name` → `{repo: HostRepo}`:
 * the repository a GitHub delivery names (its installation's GitHub id and the repository's full
 * name), with the user its work runs as: whoever connected the installation while they still reach
 * the repository, else the user who reached it first. 404 `Repository not found` when no installation
 * of ours has that id, it has no such repository, or nobody reaches it.
 */
export function findHostRepo(router: Router, deps: CatalogDeps): void {
  router.get('/source-hosts/github/installations/:externalId/repos/:owner/:name', async (ctx) => {
    const raw = pathParam(ctx, 'externalId');
    const externalId = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
    const installation = Number.isSafeInteger(externalId) ? await deps.installations.findByExternalId('github', externalId) : null;
    const repo =
      installation && !installation.deletedAt
        ? await deps.repos.findInInstallation(installation._id, `${pathParam(ctx, 'owner')}/${pathParam(ctx, 'name')}`)
        : null;
    const userId = installation && repo ? await runsAs(deps, installation.connectedBy, repo._id) : undefined;
    if (!installation || !repo || !userId) throw AppError.notFound('Repository not found');
    const found: HostRepo = { userId, repoId: repo._id, installationId: installation._id };
    ok(ctx, { repo: found });
  });
}

/** Who a repository's work runs as: the installation's connecting user while they reach it, else whoever reached it first. */
async function runsAs(deps: CatalogDeps, connectedBy: string | null, repoId: string): Promise<string | undefined> {
  if (connectedBy && (await deps.access.reachesRepo(connectedBy, repoId))) return connectedBy;
  return (await deps.access.usersOf(repoId))[0];
}
