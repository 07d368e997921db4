import { AppError } from '@ars/errors';
import { ok, type Router, pathParam } from '@ars/http-app';
import { sourceHostFor, type CatalogDeps } from './deps.js';
import { sourceHostFailure } from './repoAccess.js';
import { toRepo } from './repoView.js';

/**
 * `GET /internal/users/:userId/repos/:repoId` → `{repo: Repo & {clone_url}}`, 404 unless the user's.
 * `clone_url` is what a sandbox clones with: the `file://` URL locally; for GitHub an https URL
 * carrying a short-lived installation access token (a secret: never log it). When the source host
 * refuses a token (installation removed or suspended: `SourceHostError` of kind unauthorized,
 * forbidden or not_found) the answer is 409 `CONFLICT`; when it cannot be reached, fails or is rate
 * limited, 503 `SERVICE_UNAVAILABLE`.
 */
export function getRepo(router: Router, deps: CatalogDeps): void {
  router.get('/users/:userId/repos/:repoId', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const repo = await deps.repos.findOwned(userId, pathParam(ctx, 'repoId'));
    if (!repo) throw AppError.notFound('Repository not found');
    const installation = await deps.installations.findOwned(userId, repo.installationId);
    if (!installation) throw AppError.notFound('Repository not found');
    const host = sourceHostFor(deps, installation.provider);
    if (!host) throw AppError.unavailable(`The ${installation.provider} source host is not configured`);
    const cloneUrl = await host
      .authenticatedCloneUrl({ account: installation.account, externalId: installation.externalId }, { cloneUrl: repo.clone_url })
      .catch((error: unknown) => {
        throw sourceHostFailure(installation.provider, error);
      });
    ok(ctx, { repo: { ...toRepo(repo), clone_url: cloneUrl } });
  });
}
