import type { CollectionIndexes } from '@ars/mongo';
import type { SourceHostProvider } from '@ars/source-host';
import type { SealedSecret } from '@ars/secret-box';

/** The catalog's collections (its own database only) and their documents. */
export const COLLECTIONS = {
  counters: 'counters',
  installations: 'installations',
  repos: 'repos',
  installationAccess: 'installation_access',
  repoAccess: 'repo_access',
  githubLinks: 'github_links',
  agents: 'agents',
  userPlans: 'user_plans',
  modelPolicy: 'model_policy',
  providerKeys: 'provider_keys',
  modelVisibility: 'model_visibility',
} as const;

export interface CounterDoc {
  _id: string;
  seq: number;
}

export interface InstallationDoc {
  /** Allocated from the `installations` counter: the contract's integer `installation_id`. */
  _id: number;
  account: string;
  provider: SourceHostProvider;
  /** The source host's own installation id (GitHub's), null for the local host. */
  externalId: number | null;
  /** GitHub: the user who first connected it (PR reviews of its repositories run as them while they reach the repository); local: its user. */
  connectedBy: string | null;
  /** GitHub: since when the installation is suspended (GitHub's `suspended_at`), else null. */
  suspendedAt: Date | null;
  /** GitHub: when it was uninstalled. Final: GitHub gives a reinstallation a new id. */
  deletedAt: Date | null;
  createdAt: Date;
  /** Before access records (catalog 0.x): the one user of the installation, moved into `installation_access` at start. */
  userId?: string;
}

export interface RepoDoc {
  _id: string;
  installationId: number;
  /** The source host's id of the repository (GitHub's: it stays through renames and transfers); null for the local host. */
  externalId: number | null;
  full_name: string;
  default_branch: string | null;
  root_directory: string | null;
  /** Plain clone URL (no credentials). */
  clone_url: string;
  /** When the installation lost the repository (removed from its selection, or uninstalled); its runs stay readable, nobody reaches it. */
  removedAt: Date | null;
  createdAt: Date;
  /** Before access records: the one user of the repository, moved into `repo_access` at start. */
  userId?: string;
}

/** A user reaches an installation: its local user, or a GitHub user whose token lists it (`GET /user/installations`). */
export interface InstallationAccessDoc {
  /** `<userId>:<installationId>`. */
  _id: string;
  userId: string;
  installationId: number;
  provider: SourceHostProvider;
  checkedAt: Date;
}

/** A user reaches a repository: the local installation's user, or one GitHub lists it for (`GET /user/installations/{id}/repositories`). */
export interface RepoAccessDoc {
  /** `<userId>:<repoId>`. */
  _id: string;
  userId: string;
  repoId: string;
  installationId: number;
  provider: SourceHostProvider;
  /** The repository's `full_name`, kept here too so a user's list is one indexed query (renames update both). */
  full_name: string;
  grantedAt: Date;
  checkedAt: Date;
}

/** A user's GitHub account, as the App's user-to-server token showed it, with what rechecks what they reach. */
export interface GitHubLinkDoc {
  /** Our user id. */
  _id: string;
  githubUserId: number;
  login: string;
  /** The `ghr_` refresh token, sealed (AAD `github-refresh-token:<userId>`); null when GitHub gave none (tokens that do not expire). */
  refreshToken: SealedSecret | null;
  refreshTokenExpiresAt: Date | null;
  checkedAt: Date;
  /** While a recheck holds the refresh token (see GitHubLinkStore.holdForRecheck). */
  recheckUntil?: Date;
}

export interface AgentDoc {
  _id: string;
  userId: string;
  name: string;
  slug: string | null;
  model: string;
  description: string | null;
  category: string | null;
  createdAt: Date;
}

export interface UserPlanDoc {
  _id: string;
  plan: string;
  updatedAt: Date;
}

export interface ModelPolicyDoc {
  userId: string;
  modelId: string;
  enabled: boolean;
  updatedAt: Date;
}

export interface ProviderKeyDoc {
  userId: string;
  provider: string;
  sealed: SealedSecret;
  updatedAt: Date;
}

export interface ModelVisibilityDoc {
  _id: string;
  visible: boolean;
  updatedAt: Date;
}

export const CATALOG_INDEXES: readonly CollectionIndexes[] = [
  {
    collection: COLLECTIONS.installations,
    indexes: [{ key: { provider: 1, externalId: 1 }, name: 'provider_external', unique: true, partialFilterExpression: { externalId: { $type: 'number' } } }],
  },
  {
    collection: COLLECTIONS.repos,
    indexes: [
      { key: { installationId: 1, full_name: 1 }, name: 'installation_full_name', unique: true },
      { key: { installationId: 1, externalId: 1 }, name: 'installation_external' },
    ],
  },
  {
    collection: COLLECTIONS.installationAccess,
    indexes: [
      { key: { userId: 1, installationId: 1 }, name: 'user_installation' },
      { key: { installationId: 1 }, name: 'installation' },
    ],
  },
  {
    collection: COLLECTIONS.repoAccess,
    indexes: [
      { key: { userId: 1, full_name: 1, repoId: 1 }, name: 'user_full_name' },
      { key: { repoId: 1, grantedAt: 1 }, name: 'repo_granted' },
      { key: { installationId: 1 }, name: 'installation' },
    ],
  },
  {
    collection: COLLECTIONS.agents,
    indexes: [
      { key: { userId: 1, createdAt: 1 }, name: 'user_created' },
      { key: { userId: 1, slug: 1 }, name: 'user_slug', unique: true, partialFilterExpression: { slug: { $type: 'string' } } },
    ],
  },
  { collection: COLLECTIONS.modelPolicy, indexes: [{ key: { userId: 1, modelId: 1 }, name: 'user_model', unique: true }] },
  { collection: COLLECTIONS.providerKeys, indexes: [{ key: { userId: 1, provider: 1 }, name: 'user_provider', unique: true }] },
];
