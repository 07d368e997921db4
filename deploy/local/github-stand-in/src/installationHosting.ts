// What installing, uninstalling and changing the App (appInstallations.ts) does to the repositories
// the stand-in hosts: InstallationHosting over its state.
import type { InstallationHosting } from './appInstallations.js';
import { repositoryJson } from './json.js';
import { fullNameOf, type StandInState } from './state.js';

export function installationHosting(state: StandInState): InstallationHosting {
  return {
    repositories: (installationId) => (state.installations.get(installationId) ?? []).map((hosted) => repositoryJson(state.baseUrl, hosted)),
    host: (installationId, repositories) => state.host(installationId, repositories),
    unhost: (installationId, fullNames) => {
      const gone = new Set(fullNames.map((name) => name.toLowerCase()));
      state.installations.set(
        installationId,
        (state.installations.get(installationId) ?? []).filter((hosted) => !gone.has(fullNameOf(hosted).toLowerCase())),
      );
    },
    drop: (installationId) => void state.installations.delete(installationId),
    rename: (fullName, to) => {
      const hosted = state.hostedRepository(fullName);
      const before = repositoryJson(state.baseUrl, hosted);
      hosted.repo = { ...hosted.repo, owner: to.owner, name: to.name };
      return before;
    },
    setDefaultBranch: (fullName, branch) => {
      const hosted = state.hostedRepository(fullName);
      hosted.repo = { ...hosted.repo, defaultBranch: branch };
    },
    installationOf: (fullName) => state.hostedRepository(fullName).installationId,
    repository: (fullName) => repositoryJson(state.baseUrl, state.hostedRepository(fullName)),
  };
}
