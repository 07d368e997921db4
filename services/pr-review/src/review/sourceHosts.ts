// How pr-review reaches a repository's source host: the catalog hands out the access (installation
// and a short-lived token); the adapter is picked by provider. pr-review never holds the App's key.
import type { RepoAccess } from '@ars/catalog/client';
import { GitHubAppSourceHost, LocalSourceHost, type RepositoryRef, type SourceHost } from '@ars/source-host';

export interface RepoOnHost {
  host: SourceHost;
  ref: RepositoryRef;
}

export type SourceHosts = (access: RepoAccess) => RepoOnHost;

export function localSourceHost(options: { localDir: string; appLogin: string }): LocalSourceHost {
  return new LocalSourceHost(options.localDir, { login: options.appLogin });
}

export function sourceHosts(options: { local: LocalSourceHost; githubApiUrl: string }): SourceHosts {
  const { local } = options;
  return (access) => {
    const ref: RepositoryRef = { installation: access.installation, fullName: access.fullName };
    if (access.provider === 'local') return { host: local, ref };
    const { token, expiresAt } = access;
    if (!token) throw new Error(`the catalog handed out no token for ${access.fullName} on GitHub`);
    const host = new GitHubAppSourceHost({
      apiUrl: options.githubApiUrl,
      installationToken: () => Promise.resolve({ token, expiresAt: expiresAt ?? new Date(Date.now() + 60_000).toISOString() }),
    });
    return { host, ref };
  };
}
