import { AppError } from '@ars/errors';
import { ok, type Router, pathParam } from '@ars/http-app';
import { SourceHostError, type SourceHostProvider } from '@ars/source-host';
import { sourceHostFor, type CatalogDeps } from './deps.js';

/** How another service reaches a repository on its source host (pr-review: pull requests, check runs, reviews). */
export interface RepoAccess {
  provider: SourceHostProvider;
  /** The catalog's installation the repository belongs to. */
  installationId: number;
  /** `owner/name` on the source host. */
  fullName: string;
  installation: { account: string; externalId: number | null };
  /** A short-lived installation access token (a secret: never logged), or null when the host needs none (local). */
  token: string | null;
  expiresAt: string | null;
}

/**
 * `POST /internal/users/:userId/repos/:repoId/access` → `{access: RepoAccess}`: the catalog keeps
 * the source host's credentials (the GitHub App's key) and hands out what one repository needs, so
 * no other service holds them. A POST: every call may mint a token. 404 unless the user's
 * repository; the host refusing a token (installation removed or suspended) is 409 `CONFLICT` `No
 * source-host access token for the repository (…)`; the host unreachable, failing or rate limited,
 * 503 (the same rule as the clone URL of `GET …/repos/:repoId`).
 */
export function repoAccess(router: Router, deps: CatalogDeps): void {
  router.post('/users/:userId/repos/:repoId/access', async (ctx) => {
    const { repo, installation, host } = await ownedRepoOnHost(deps, pathParam(ctx, 'userId'), pathParam(ctx, 'repoId'));
    const ref = { account: installation.account, externalId: installation.externalId };
    const granted = await host.accessToken(ref).catch((error: unknown) => {
      throw sourceHostFailure(installation.provider, error);
    });
    const access: RepoAccess = {
      provider: installation.provider,
      installationId: installation._id,
      fullName: repo.full_name,
      installation: ref,
      token: granted?.token ?? null,
      expiresAt: granted?.expiresAt ?? null,
    };
    ok(ctx, { access });
  });
}

/**
 * A repository the user reaches, its installation and that installation's source host: 404 unless
 * the user reaches it now (a repository removed from its installation, or uninstalled, is nobody's);
 * 409 while its installation is suspended; 503 when the host is not configured.
 */
export async function ownedRepoOnHost(deps: CatalogDeps, userId: string, repoId: string) {
  const [reached, repo] = await Promise.all([deps.access.reachesRepo(userId, repoId), deps.repos.find(repoId)]);
  if (!reached || !repo || repo.removedAt) throw AppError.notFound('Repository not found');
  const installation = await deps.installations.find(repo.installationId);
  if (!installation || installation.deletedAt) throw AppError.notFound('Repository not found');
  if (installation.suspendedAt) throw AppError.conflict(`The ${installation.provider} installation of the repository is suspended`);
  const host = sourceHostFor(deps, installation.provider);
  if (!host) throw AppError.unavailable(`The ${installation.provider} source host is not configured`);
  return { repo, installation, host };
}

/** A refused token (installation removed or suspended) is 409; the host unreachable, failing or rate limited is 503. */
export function sourceHostFailure(provider: string, error: unknown): AppError {
  if (error instanceof SourceHostError && (error.kind === 'unauthorized' || error.kind === 'forbidden' || error.kind === 'not_found')) {
    return AppError.conflict(`No source-host access token for the repository (${provider} answered ${error.status})`);
  }
  return AppError.unavailable(`The ${provider} source host failed to issue an access token`);
}
