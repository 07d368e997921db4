// The catalog's rule over what a source host shows of an installation: its repositories recorded as
// they are now, renames carried into every access record, and what the installation no longer has
// removed from everyone's reach (its runs and sandboxes keep their records; new ones find nothing).
import type { SourceHostRepository } from '@ars/source-host';
import type { AccessStore } from '../store/access.js';
import type { InstallationDoc, RepoDoc } from '../store/collections.js';
import type { InstallationStore } from '../store/installations.js';
import type { RepoStore } from '../store/repos.js';

export interface InstallationStores {
  installations: InstallationStore;
  repos: RepoStore;
  access: AccessStore;
}

/** Records these repositories of the installation (new ones added, known ones refreshed, renames carried into access records). */
export async function recordRepositories(stores: InstallationStores, installationId: number, hosted: readonly SourceHostRepository[]): Promise<RepoDoc[]> {
  const recorded: RepoDoc[] = [];
  for (const repository of hosted) {
    const { repo, renamedFrom } = await stores.repos.upsert(installationId, repository);
    if (renamedFrom !== null) await stores.access.renameRepo(repo._id, repo.full_name);
    recorded.push(repo);
  }
  return recorded.sort((a, b) => (a.full_name < b.full_name ? -1 : a.full_name > b.full_name ? 1 : 0));
}

/** The installation has exactly `hosted` now: recorded, and every other repository of it removed from everyone's reach. */
export async function syncInstallationRepositories(
  stores: InstallationStores,
  installation: InstallationDoc,
  hosted: readonly SourceHostRepository[],
): Promise<{ repos: RepoDoc[]; removed: number }> {
  const before = await stores.repos.ofInstallation(installation._id);
  const repos = await recordRepositories(stores, installation._id, hosted);
  const kept = new Set(repos.map((repo) => repo._id));
  const gone = before.filter((repo) => !kept.has(repo._id)).map((repo) => repo._id);
  await stores.access.withdrawRepos(gone);
  await stores.repos.markRemoved(gone);
  return { repos, removed: gone.length };
}

/** Uninstalled: the installation and every repository of it leave everyone's reach, for good. */
export async function uninstall(stores: InstallationStores, installation: InstallationDoc): Promise<void> {
  await stores.access.withdrawInstallation(installation._id);
  await stores.repos.markRemoved((await stores.repos.ofInstallation(installation._id)).map((repo) => repo._id));
  await stores.installations.markDeleted(installation._id);
}
