import type { CollectionIndexes } from '@ars/mongo';
import type { SourceHostProvider } from '@ars/source-host';
import type { SealedSecret } from '@ars/secret-box';

/** The catalog's collections (its own database only) and their documents. */
export const COLLECTIONS = {
  counters: 'counters',
  installations: 'installations',
  repos: 'repos',
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
  userId: string;
  account: string;
  provider: SourceHostProvider;
  /** The source host's own installation id (GitHub's), null for the local host. */
  externalId: number | null;
  createdAt: Date;
}

export interface RepoDoc {
  _id: string;
  userId: string;
  installationId: number;
  full_name: string;
  default_branch: string | null;
  root_directory: string | null;
  /** Plain clone URL (no credentials). */
  clone_url: string;
  createdAt: Date;
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
  { collection: COLLECTIONS.installations, indexes: [{ key: { userId: 1 }, name: 'user' }] },
  {
    collection: COLLECTIONS.repos,
    indexes: [
      { key: { installationId: 1, full_name: 1 }, name: 'installation_full_name', unique: true },
      { key: { userId: 1, full_name: 1 }, name: 'user_full_name' },
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
