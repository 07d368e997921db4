// GitHub on a user's behalf, with the App's user-to-server token: who the user is (GET /user), the
// App's installations they reach (GET /user/installations) and, in each, the repositories GitHub
// lets them see (GET /user/installations/{id}/repositories); and a new token from a refresh token
// (POST {web}/login/oauth/access_token, grant_type=refresh_token: GitHub rotates both tokens, and
// answers its errors with HTTP 200). As GitHub documents them ("Generating a user access token for a
// GitHub App", "Refreshing user access tokens", the REST pages of GitHub App installations).
import { kindOfStatus, SourceHostError, type SourceHostRepository } from '@ars/source-host';
import type { GitHubInstallationSeen } from '../store/installations.js';

const TIMEOUT_MS = 10_000;
const PAGE_SIZE = 100;
/** A user in thousands of repositories still ends: GitHub's lists are paged, and a page count is a bound. */
const MAX_PAGES = 50;
const API_HEADERS = { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', 'user-agent': 'agent-run-service' };

/** A user-to-server token and, when GitHub gives one, the refresh token that renews it. Secrets: never logged. */
export interface GitHubUserTokens {
  accessToken: string;
  refreshToken: string | null;
  /** Seconds, as GitHub says (`refresh_token_expires_in`). */
  refreshTokenExpiresIn: number | null;
}

/** GitHub refused the refresh token (expired, used, or the user revoked the App): the link is over. */
export class RefreshTokenRefused extends Error {}

export interface GitHubUserApi {
  /** False without the App's OAuth client: refresh tokens cannot be used, so they are not kept. */
  readonly canRefresh: boolean;
  whoAmI(token: string): Promise<{ id: number; login: string }>;
  installations(token: string): Promise<GitHubInstallationSeen[]>;
  repositories(token: string, installationExternalId: number): Promise<SourceHostRepository[]>;
  refresh(refreshToken: string): Promise<GitHubUserTokens>;
}

interface GitHubInstallationJson {
  id: number;
  account?: { login?: string } | null;
  suspended_at?: string | null;
}
interface GitHubRepositoryJson {
  id: number;
  full_name: string;
  default_branch?: string | null;
  clone_url: string;
}

async function call(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    throw new SourceHostError('unavailable', 0, `GitHub could not be reached at ${new URL(url).origin}`, { cause: error });
  }
}

function refusal(what: string, response: Response): SourceHostError {
  const kind = kindOfStatus(response.status, response.headers.get('x-ratelimit-remaining') === '0');
  return new SourceHostError(kind, response.status, `GitHub answered ${response.status} to ${what}`);
}

export function gitHubUserApi(settings: { apiUrl: string; webUrl: string; client: { id: string; secret: string } | undefined }): GitHubUserApi {
  const api = settings.apiUrl.replace(/\/+$/, '');
  const web = settings.webUrl.replace(/\/+$/, '');

  const get = async <T>(token: string, path: string): Promise<T> => {
    const response = await call(`${api}${path}`, { headers: { ...API_HEADERS, authorization: `Bearer ${token}` } });
    if (!response.ok) throw refusal(`GET ${path.split('?')[0] ?? path}`, response);
    return (await response.json()) as T;
  };

  /** Every page of a GitHub list (`per_page` 100, until a short page or the total). */
  const pages = async <T>(token: string, path: string, itemsOf: (page: Record<string, unknown>) => T[]): Promise<T[]> => {
    const items: T[] = [];
    for (let page = 1; page <= MAX_PAGES; page += 1) {
      const body = await get<Record<string, unknown>>(token, `${path}?per_page=${PAGE_SIZE}&page=${page}`);
      const found = itemsOf(body);
      items.push(...found);
      const total = typeof body.total_count === 'number' ? body.total_count : Infinity;
      if (found.length < PAGE_SIZE || items.length >= total) break;
    }
    return items;
  };

  return {
    canRefresh: settings.client !== undefined,
    async whoAmI(token) {
      const user = await get<{ id?: unknown; login?: unknown }>(token, '/user');
      if (typeof user.id !== 'number' || typeof user.login !== 'string')
        throw new SourceHostError('unavailable', 200, 'GitHub answered GET /user without an id');
      return { id: user.id, login: user.login };
    },
    async installations(token) {
      const listed = await pages(token, '/user/installations', (body) =>
        Array.isArray(body.installations) ? (body.installations as GitHubInstallationJson[]) : [],
      );
      return listed
        .filter((installation) => Number.isSafeInteger(installation.id))
        .map((installation) => ({
          externalId: installation.id,
          account: installation.account?.login ?? String(installation.id),
          suspendedAt: installation.suspended_at ? new Date(installation.suspended_at) : null,
        }));
    },
    async repositories(token, installationExternalId) {
      const listed = await pages(token, `/user/installations/${installationExternalId}/repositories`, (body) =>
        Array.isArray(body.repositories) ? (body.repositories as GitHubRepositoryJson[]) : [],
      );
      return listed.map((repo) => ({ externalId: repo.id, fullName: repo.full_name, defaultBranch: repo.default_branch ?? null, cloneUrl: repo.clone_url }));
    },
    async refresh(refreshToken) {
      if (!settings.client) throw new Error('no GitHub App client (GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET) to refresh user tokens with');
      const response = await call(`${web}/login/oauth/access_token`, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json', 'user-agent': API_HEADERS['user-agent'] },
        body: JSON.stringify({
          client_id: settings.client.id,
          client_secret: settings.client.secret,
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
        }),
      });
      if (!response.ok) throw refusal('the token refresh', response);
      const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
      if (typeof body.error === 'string') throw new RefreshTokenRefused(`GitHub refused the refresh token (${body.error})`);
      if (typeof body.access_token !== 'string') throw new SourceHostError('unavailable', 200, 'GitHub answered the token refresh without a token');
      return {
        accessToken: body.access_token,
        refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : null,
        refreshTokenExpiresIn: typeof body.refresh_token_expires_in === 'number' ? body.refresh_token_expires_in : null,
      };
    },
  };
}
