import type { AccessStore } from './access.js';
import type { InstallationStore } from './installations.js';
import type { RepoStore } from './repos.js';

/**
 * Installations and repositories recorded before access records carried their one user as `userId`:
 * each becomes that user's access record, then the field goes. Runs at every start; after the first it
 * finds nothing. Returns how many documents it moved.
 */
export async function adoptLegacyOwners(stores: { installations: InstallationStore; repos: RepoStore; access: AccessStore }): Promise<number> {
  let moved = 0;
  for (const installation of await stores.installations.withLegacyOwner()) {
    const userId = installation.userId ?? '';
    await stores.access.grant(userId, installation.provider, installation._id, []);
    await stores.installations.forgetLegacyOwner(installation._id, userId);
    moved += 1;
  }
  for (const repo of await stores.repos.withLegacyOwner()) {
    const installation = await stores.installations.find(repo.installationId);
    await stores.access.grant(repo.userId ?? '', installation?.provider ?? 'local', repo.installationId, [repo]);
    await stores.repos.forgetLegacyOwner(repo._id);
    moved += 1;
  }
  return moved;
}
