// What a signed-in user reaches through the GitHub App: exactly what GitHub lists for their
// user-to-server token — the App's installations they reach (GET /user/installations) and, in each,
// the repositories GitHub lets them see (GET /user/installations/{id}/repositories). Checked when
// the gateway hands over a fresh token (sign-in with GitHub, Connect GitHub) and rechecked with the
// kept refresh token (sign-in with another method, Refresh). Someone GitHub no longer shows a
// repository to (removed from the organization, the App's authorization revoked) loses it.
import { AppError } from '@ars/errors';
import { SourceHostError } from '@ars/source-host';
import type { GitHubLinkDoc, InstallationDoc, RepoDoc } from '../store/collections.js';
import type { GitHubLinkStore } from '../store/githubLinks.js';
import { RefreshTokenRefused, type GitHubUserApi, type GitHubUserTokens } from './gitHubUserApi.js';
import { recordRepositories, type InstallationStores } from './installationRepositories.js';

export interface GitHubReachDeps extends InstallationStores {
  githubLinks: GitHubLinkStore;
  githubUsers: GitHubUserApi | undefined;
}

/** A user's GitHub connection as the settings page shows it. */
export interface GitHubConnection {
  login: string;
  githubUserId: number;
  checkedAt: string;
  /** True when the catalog can recheck without the user (a refresh token is kept). */
  recheckable: boolean;
  installations: {
    id: number;
    externalId: number;
    account: string;
    suspended: boolean;
    repositoryCount: number;
    /** The first 100 by `full_name`. */
    repositories: { id: string; full_name: string }[];
  }[];
}

const SHOWN_REPOSITORIES = 100;
/** How long one recheck holds the refresh token: GitHub rotates it on use, so two at once would lose the link. */
const RECHECK_HOLD_MS = 60_000;

function usersApi(deps: GitHubReachDeps): GitHubUserApi {
  if (!deps.githubUsers) throw AppError.unavailable('The GitHub App is not configured in the catalog (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY)');
  return deps.githubUsers;
}

/** GitHub refusing the user's token is the caller's conflict; GitHub failing or unreachable, 503. */
function gitHubFailure(error: unknown): AppError {
  if (error instanceof SourceHostError && (error.kind === 'unauthorized' || error.kind === 'forbidden')) {
    return AppError.conflict(`GitHub refused the user token (${error.status})`);
  }
  return AppError.unavailable('GitHub could not be asked what the user reaches now');
}

/** Checks what the token's user reaches now, makes the user's GitHub access exactly that, and keeps the link. */
export async function checkGitHubUser(deps: GitHubReachDeps, userId: string, tokens: GitHubUserTokens): Promise<GitHubConnection> {
  const api = usersApi(deps);
  const seen = await (async () => {
    const who = await api.whoAmI(tokens.accessToken);
    const installations = await api.installations(tokens.accessToken);
    const listed = [];
    for (const installation of installations) listed.push({ installation, repositories: await api.repositories(tokens.accessToken, installation.externalId) });
    return { who, listed };
  })().catch((error: unknown) => {
    throw gitHubFailure(error);
  });
  const installationIds: number[] = [];
  const reposByInstallation = new Map<number, RepoDoc[]>();
  for (const { installation, repositories } of seen.listed) {
    const recorded = await deps.installations.upsertGitHub(installation, userId);
    if (recorded.deletedAt) continue;
    installationIds.push(recorded._id);
    reposByInstallation.set(recorded._id, await recordRepositories(deps, recorded._id, repositories));
  }
  await deps.access.reconcile(userId, 'github', { installationIds, repos: [...reposByInstallation.values()].flat() }, reposByInstallation);
  const link = await deps.githubLinks.save(userId, {
    githubUserId: seen.who.id,
    login: seen.who.login,
    refreshToken: api.canRefresh ? tokens.refreshToken : null,
    refreshTokenExpiresIn: tokens.refreshTokenExpiresIn,
  });
  return connectionOf(deps, link);
}

/**
 * Rechecks with the kept refresh token: null when the user has no link or GitHub refused the refresh
 * token (then the link is gone and so is everything it gave). A recheck already under way for the
 * user answers what is known, unchanged.
 */
export async function recheckGitHubUser(deps: GitHubReachDeps, userId: string): Promise<GitHubConnection | null> {
  const api = usersApi(deps);
  if (!api.canRefresh) throw AppError.unavailable('The catalog cannot recheck GitHub access without the App’s client (GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET)');
  const link = await deps.githubLinks.find(userId);
  if (!link) return null;
  const held = await deps.githubLinks.holdForRecheck(userId, RECHECK_HOLD_MS);
  if (!held) return connectionOf(deps, link);
  const refreshToken = deps.githubLinks.refreshTokenOf(held);
  let tokens: GitHubUserTokens;
  try {
    if (refreshToken === null) throw new RefreshTokenRefused('no refresh token is kept (or it no longer opens)');
    tokens = await api.refresh(refreshToken);
  } catch (error) {
    if (error instanceof RefreshTokenRefused) {
      await unlinkGitHubUser(deps, userId);
      return null;
    }
    await deps.githubLinks.release(userId);
    throw gitHubFailure(error);
  }
  // The refresh token is spent now: a failure below keeps the new one so the next recheck can work.
  await deps.githubLinks.save(userId, {
    githubUserId: held.githubUserId,
    login: held.login,
    refreshToken: tokens.refreshToken,
    refreshTokenExpiresIn: tokens.refreshTokenExpiresIn,
  });
  return checkGitHubUser(deps, userId, tokens);
}

/** The user's GitHub link ends: the link, and every GitHub installation and repository it gave. */
export async function unlinkGitHubUser(deps: GitHubReachDeps, userId: string): Promise<void> {
  await deps.access.withdrawUser(userId, 'github');
  await deps.githubLinks.remove(userId);
}

/** The user's connection as the catalog knows it now (no GitHub call). */
export async function connectionOf(deps: GitHubReachDeps, link: GitHubLinkDoc): Promise<GitHubConnection> {
  const installationIds = await deps.access.installationsOf(link._id, 'github');
  const installations: InstallationDoc[] = (await deps.installations.findMany(installationIds)).filter((installation) => !installation.deletedAt);
  const shown = [];
  for (const installation of installations.sort((a, b) => a._id - b._id)) {
    const { count, first } = await deps.access.reposIn(link._id, installation._id, SHOWN_REPOSITORIES);
    shown.push({
      id: installation._id,
      externalId: installation.externalId ?? 0,
      account: installation.account,
      suspended: Boolean(installation.suspendedAt),
      repositoryCount: count,
      repositories: first.map((access) => ({ id: access.repoId, full_name: access.full_name })),
    });
  }
  return {
    login: link.login,
    githubUserId: link.githubUserId,
    checkedAt: link.checkedAt.toISOString(),
    recheckable: link.refreshToken !== null,
    installations: shown,
  };
}
