// A user's repository on its source host, as the routes find it before they decide.
import type { RepoAccess } from '@ars/catalog/client';
import { AppError, isAppError } from '@ars/errors';
import type { PrReviewDeps } from './deps.js';
import type { RepoOnHost } from './sourceHosts.js';

export type RepoReach =
  | { kind: 'reachable'; access: RepoAccess; onHost: RepoOnHost }
  /** The user's repository, but the catalog has no access token for it (installation removed or suspended). */
  | { kind: 'no-token'; fullName: string };

/** 404 `Repository not found` unless the user's; the catalog's 503 as it is. */
export async function reachRepo(deps: PrReviewDeps, userId: string, repoId: string): Promise<RepoReach> {
  try {
    const access = await deps.catalog.repoAccess(userId, repoId);
    return { kind: 'reachable', access, onHost: deps.hosts(access) };
  } catch (error) {
    if (!isAppError(error)) throw error;
    if (error.code === 'NOT_FOUND') throw AppError.notFound('Repository not found');
    if (error.code !== 'CONFLICT') throw error;
    const repo = await deps.catalog.repo(userId, repoId);
    return { kind: 'no-token', fullName: repo.full_name };
  }
}
