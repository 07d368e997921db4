import { ok, type Router, pathParam } from '@ars/http-app';
import type { CatalogDeps } from './deps.js';
import { ownedRepoOnHost, sourceHostFailure } from './repoAccess.js';
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
    const { repo, installation, host } = await ownedRepoOnHost(deps, pathParam(ctx, 'userId'), pathParam(ctx, 'repoId'));
    const cloneUrl = await host
      .authenticatedCloneUrl({ account: installation.account, externalId: installation.externalId }, { cloneUrl: repo.clone_url })
      .catch((error: unknown) => {
        throw sourceHostFailure(installation.provider, error);
      });
    ok(ctx, { repo: { ...toRepo(repo), clone_url: cloneUrl } });
  });
}
