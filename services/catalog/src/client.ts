// The catalog's internal API as its callers use it (gateway, runs, sandboxes): one method per route,
// typed with @ars/contract's shapes. Imports no catalog runtime, so a caller pulls in nothing else.
import { pathSegment, type Agent, type CatalogRepo, type DevInstallation, type Model, type Repo } from '@ars/contract';
import type { HttpClient } from '@ars/http-client';
import type { HostRepo } from './http/findHostRepo.js';
import type { RepoAccess } from './http/repoAccess.js';
import type { DeliveryApplied } from './sourceHost/gitHubDeliveries.js';
import type { GitHubUserTokens } from './sourceHost/gitHubUserApi.js';
import type { GitHubConnection } from './sourceHost/gitHubUserReach.js';

export type { DeliveryApplied, GitHubConnection, GitHubUserTokens, HostRepo, RepoAccess };

/** Per call: aborts it (with the client's deadline) and overrides that deadline. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** An installation as `GET /internal/users/:userId/installations/:id` answers it. */
export interface CatalogInstallation {
  id: number;
  account: string;
  provider: 'local' | 'github';
}

export interface CatalogClient {
  /** `GET /internal/users/:userId/repos?q=&limit=`: the user's repositories by `full_name`. */
  listRepos(userId: string, query?: { q?: string; limit?: number }): Promise<Repo[]>;
  /** `GET /internal/users/:userId/repos/:repoId`: NOT_FOUND unless the user's; `clone_url` may carry a token. */
  repo(userId: string, repoId: string, options?: CallOptions): Promise<CatalogRepo>;
  /**
   * `POST /internal/users/:userId/repos/:repoId/access`: how to reach the repository on its source
   * host, with a short-lived token (null for the local host); NOT_FOUND unless the user's, CONFLICT
   * when the host refuses a token, SERVICE_UNAVAILABLE when it cannot issue one now.
   */
  repoAccess(userId: string, repoId: string): Promise<RepoAccess>;
  /** `GET /internal/source-hosts/github/installations/:externalId/repos/:owner/:name`: whose repository a GitHub delivery names; NOT_FOUND when none of ours. */
  githubRepo(externalInstallationId: number, fullName: string): Promise<HostRepo>;
  /** `POST /internal/source-hosts/github/deliveries`: a delivery whose signature was checked, taken once (installation, installation_repositories, repository). */
  applyGitHubDelivery(delivery: { event: string; deliveryId: string; payload: unknown }): Promise<DeliveryApplied>;
  /** `PUT /internal/users/:userId/github`: the user's GitHub reach made exactly what GitHub lists for this user token (tokens are secrets). */
  connectGitHub(userId: string, tokens: GitHubUserTokens, options?: CallOptions): Promise<GitHubConnection>;
  /** `POST /internal/users/:userId/github/recheck`: rechecked with the kept refresh token; null when not linked (any more). */
  recheckGitHub(userId: string, options?: CallOptions): Promise<GitHubConnection | null>;
  /** `GET /internal/users/:userId/github`: the user's GitHub connection as known, or null. */
  gitHubConnection(userId: string): Promise<GitHubConnection | null>;
  /** `GET /internal/users/:userId/installations/:installationId`: NOT_FOUND unless the user's. */
  installation(userId: string, installationId: number): Promise<CatalogInstallation>;
  /** `GET /internal/users/:userId/agents`: the user's own agents, then the presets. */
  listAgents(userId: string): Promise<Agent[]>;
  /** `GET /internal/users/:userId/models`: the models available to the user. */
  listModels(userId: string): Promise<Model[]>;
  /** `POST /internal/dev/installations` (development only; NOT_FOUND in production). */
  createDevInstallation(body: { userId: string; repoCount?: number }, options?: CallOptions): Promise<DevInstallation>;
}

/** `http`'s base URL is the catalog's root (`CATALOG_URL`); every failure is the AppError the client maps. */
export function createCatalogClient(http: HttpClient): CatalogClient {
  const user = (userId: string) => `/internal/users/${encodeURIComponent(userId)}`;
  return {
    async listRepos(userId, query = {}) {
      const answer = await http.get<{ repos: Repo[] }>(`${user(userId)}/repos`, { query });
      return answer.repos;
    },
    async repo(userId, repoId, options = {}) {
      const answer = await http.get<{ repo: CatalogRepo }>(`${user(userId)}/repos/${pathSegment(repoId)}`, options);
      return answer.repo;
    },
    async repoAccess(userId, repoId) {
      return (await http.post<{ access: RepoAccess }>(`${user(userId)}/repos/${pathSegment(repoId)}/access`, {})).access;
    },
    async githubRepo(externalInstallationId, fullName) {
      const [owner = '', name = ''] = fullName.split('/');
      const path = `/internal/source-hosts/github/installations/${externalInstallationId}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
      return (await http.get<{ repo: HostRepo }>(path)).repo;
    },
    async applyGitHubDelivery(delivery) {
      return (await http.post<{ applied: DeliveryApplied }>('/internal/source-hosts/github/deliveries', delivery)).applied;
    },
    async connectGitHub(userId, tokens, options = {}) {
      return (await http.put<{ github: GitHubConnection }>(`${user(userId)}/github`, tokens, options)).github;
    },
    async recheckGitHub(userId, options = {}) {
      return (await http.post<{ github: GitHubConnection | null }>(`${user(userId)}/github/recheck`, {}, options)).github;
    },
    async gitHubConnection(userId) {
      return (await http.get<{ github: GitHubConnection | null }>(`${user(userId)}/github`)).github;
    },
    async installation(userId, installationId) {
      return (await http.get<{ installation: CatalogInstallation }>(`${user(userId)}/installations/${installationId}`)).installation;
    },
    async listAgents(userId) {
      return (await http.get<{ agents: Agent[] }>(`${user(userId)}/agents`)).agents;
    },
    async listModels(userId) {
      return (await http.get<{ models: Model[] }>(`${user(userId)}/models`)).models;
    },
    async createDevInstallation(body, options = {}) {
      return http.post<DevInstallation>('/internal/dev/installations', body, options);
    },
  };
}
