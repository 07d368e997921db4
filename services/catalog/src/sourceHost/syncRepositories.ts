import type { SourceHost } from '@ars/source-host';
import type { InstallationDoc, RepoDoc } from '../store/collections.js';
import type { RepoStore } from '../store/repos.js';

/**
 * Imports every repository the source host shows for the installation into the catalog (new ones
 * added, known ones refreshed by `(installationId, full_name)`), and returns them by `full_name`.
 */
export async function syncRepositories(host: SourceHost, installation: InstallationDoc, repos: RepoStore): Promise<RepoDoc[]> {
  const hosted = await host.listRepositories({ account: installation.account, externalId: installation.externalId });
  const stored: RepoDoc[] = [];
  for (const repository of hosted) {
    stored.push(
      await repos.upsert({
        userId: installation.userId,
        installationId: installation._id,
        fullName: repository.fullName,
        defaultBranch: repository.defaultBranch,
        cloneUrl: repository.cloneUrl,
      }),
    );
  }
  return stored.sort((a, b) => (a.full_name < b.full_name ? -1 : a.full_name > b.full_name ? 1 : 0));
}
