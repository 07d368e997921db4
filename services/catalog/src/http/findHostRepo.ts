import { AppError } from '@ars/errors';
import { ok, type Router, pathParam } from '@ars/http-app';
import type { CatalogDeps } from './deps.js';

/** Whose repository a source host's delivery is about (pr-review's webhooks). */
export interface HostRepo {
  userId: string;
  repoId: string;
  installationId: number;
}

/**
 * `GET /internal/source-hosts/github/installations/:externalId/repos/:owner/:name` → `{repo: HostRepo}`:
 * the repository a GitHub delivery names (its installation's GitHub id and the repository's full
 * name), with the user it belongs to. 404 `Repository not found` when no installation of ours has that
 * id or it has no such repository.
 */
export function findHostRepo(router: Router, deps: CatalogDeps): void {
  router.get('/source-hosts/github/installations/:externalId/repos/:owner/:name', async (ctx) => {
    const raw = pathParam(ctx, 'externalId');
    const externalId = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
    const installation = Number.isSafeInteger(externalId) ? await deps.installations.findByExternalId('github', externalId) : null;
    const repo = installation ? await deps.repos.findInInstallation(installation._id, `${pathParam(ctx, 'owner')}/${pathParam(ctx, 'name')}`) : null;
    if (!installation || !repo) throw AppError.notFound('Repository not found');
    const found: HostRepo = { userId: repo.userId, repoId: repo._id, installationId: installation._id };
    ok(ctx, { repo: found });
  });
}
