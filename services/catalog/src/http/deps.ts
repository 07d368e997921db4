import type { Logger } from '@ars/logger';
import type { GitHubAppSourceHost, LocalSourceHost, SourceHost, SourceHostProvider } from '@ars/source-host';
import { availableModels, type CatalogModel } from '../domain/modelAvailability.js';
import { DEFAULT_PLAN, MODEL_CATALOG } from '../domain/modelCatalog.js';
import type { GitHubUserApi } from '../sourceHost/gitHubUserApi.js';
import type { AccessStore } from '../store/access.js';
import type { AgentStore } from '../store/agents.js';
import type { GitHubLinkStore } from '../store/githubLinks.js';
import type { InstallationStore } from '../store/installations.js';
import type { ModelSettingsStore } from '../store/modelSettings.js';
import type { RepoStore } from '../store/repos.js';

/** What the routes work with: the stores, the source hosts and the deployment environment. */
export interface CatalogDeps {
  installations: InstallationStore;
  repos: RepoStore;
  /** Who reaches which installation and repository: every tenancy rule reads it. */
  access: AccessStore;
  githubLinks: GitHubLinkStore;
  agents: AgentStore;
  modelSettings: ModelSettingsStore;
  localHost: LocalSourceHost;
  /** Present only when the GitHub App is configured. */
  githubHost: GitHubAppSourceHost | undefined;
  /** GitHub on a user's behalf (their user-to-server token); present only when the GitHub App is configured. */
  githubUsers: GitHubUserApi | undefined;
  production: boolean;
  logger: Logger;
}

export function sourceHostFor(deps: CatalogDeps, provider: SourceHostProvider): SourceHost | undefined {
  return provider === 'local' ? deps.localHost : deps.githubHost;
}

/** The catalog with visibility overrides applied, then the rules of `modelAvailability.ts` for this user. */
export async function modelsAvailableTo(deps: CatalogDeps, userId: string): Promise<CatalogModel[]> {
  const [overrides, plan, providerKeys, enabledByModelId] = await Promise.all([
    deps.modelSettings.visibilityOverrides(),
    deps.modelSettings.plan(userId),
    deps.modelSettings.providersWithKeys(userId),
    deps.modelSettings.enabledByModelId(userId),
  ]);
  const catalog = MODEL_CATALOG.map((model) => ({ ...model, visible: overrides.get(model.id) ?? model.visible }));
  return availableModels(catalog, { plan: plan ?? DEFAULT_PLAN, providerKeys, enabledByModelId });
}
