import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/core';
import type { InstallationRef, SourceHost, SourceHostRepository } from './sourceHost.js';

export interface GitHubAppOptions {
  appId: string;
  /** The App's private key (PEM, PKCS#1 as GitHub issues it, or PKCS#8). */
  privateKey: string;
  /** `https://api.github.com`, or a GitHub Enterprise Server's `https://<host>/api/v3`. */
  apiUrl: string;
}

interface GitHubRepository {
  full_name: string;
  default_branch?: string | null;
  clone_url: string;
}

const PAGE_SIZE = 100;

/**
 * The GitHub App adapter. The App authenticates as itself with an RS256 JWT (`iss` = the App id),
 * mints an installation access token (`POST /app/installations/:id/access_tokens`; Octokit's
 * auth-app caches it until shortly before it expires), and reads the installation's repositories
 * with that token (`GET /installation/repositories`, every page).
 */
export class GitHubAppSourceHost implements SourceHost {
  readonly provider = 'github' as const;
  private readonly app: Octokit;
  private readonly baseUrl: string;

  constructor(options: GitHubAppOptions) {
    this.baseUrl = options.apiUrl.replace(/\/+$/, '');
    this.app = new Octokit({
      baseUrl: this.baseUrl,
      authStrategy: createAppAuth,
      auth: { appId: options.appId, privateKey: options.privateKey },
    });
  }

  /** An installation access token and when it expires (ISO 8601). A secret: never log it. */
  async installationToken(installationId: number): Promise<{ token: string; expiresAt: string }> {
    const auth = (await this.app.auth({ type: 'installation', installationId })) as { token: string; expiresAt: string };
    return { token: auth.token, expiresAt: auth.expiresAt };
  }

  async listRepositories(installation: InstallationRef): Promise<SourceHostRepository[]> {
    const installationId = requireExternalId(installation);
    const { token } = await this.installationToken(installationId);
    const asInstallation = new Octokit({ baseUrl: this.baseUrl, auth: token });
    const repositories: SourceHostRepository[] = [];
    for (let page = 1; ; page += 1) {
      const response = await asInstallation.request('GET /installation/repositories', { per_page: PAGE_SIZE, page });
      const data = response.data as { total_count: number; repositories: GitHubRepository[] };
      for (const repo of data.repositories) {
        repositories.push({ fullName: repo.full_name, defaultBranch: repo.default_branch ?? null, cloneUrl: repo.clone_url });
      }
      if (data.repositories.length < PAGE_SIZE || repositories.length >= data.total_count) return repositories;
    }
  }

  /** `https://x-access-token:<token>@host/owner/repo.git`: how GitHub documents cloning with an installation token. */
  async authenticatedCloneUrl(installation: InstallationRef, repository: { cloneUrl: string }): Promise<string> {
    const { token } = await this.installationToken(requireExternalId(installation));
    const url = new URL(repository.cloneUrl);
    url.username = 'x-access-token';
    url.password = token;
    return url.toString();
  }
}

function requireExternalId(installation: InstallationRef): number {
  if (installation.externalId === null) throw new Error(`installation of ${installation.account} has no GitHub installation id`);
  return installation.externalId;
}
