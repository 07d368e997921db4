import type { FromSchema } from 'json-schema-to-ts';

// The contract's answer shapes are written once, as JSON Schemas (the gateway's OpenAPI document
// shows them); the TypeScript types are derived from them, type-level only, so the two cannot drift.

const nullableString = { type: ['string', 'null'] } as const;

/** CONTRACT.md, Repo (`RepoItem`): exactly these fields. */
export const REPO_SCHEMA = {
  type: 'object',
  required: ['id', 'full_name', 'installation_id', 'default_branch', 'root_directory'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', description: 'Used as `repoId` elsewhere.' },
    full_name: { type: 'string', description: 'owner/repo' },
    installation_id: { type: 'integer', description: 'Used when creating an automation.' },
    default_branch: nullableString,
    root_directory: nullableString,
  },
} as const;
export type Repo = FromSchema<typeof REPO_SCHEMA>;

/**
 * A user's repository as the catalog answers it inside the system: the contract's Repo and the URL
 * a sandbox clones with (it may carry a short-lived token: never log it, never show it publicly).
 */
export type CatalogRepo = Repo & { clone_url: string };

/** CONTRACT.md, Agent: exactly these fields. */
export const AGENT_SCHEMA = {
  type: 'object',
  required: ['id', 'name', 'slug', 'model', 'description', 'category', 'preset'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', description: 'Preset agents have ids beginning with `preset:`.' },
    name: { type: 'string' },
    slug: nullableString,
    model: { type: 'string' },
    description: nullableString,
    category: nullableString,
    preset: { type: 'boolean' },
  },
} as const;
export type Agent = FromSchema<typeof AGENT_SCHEMA>;

const nullableNumber = { type: ['number', 'null'] } as const;

/** CONTRACT.md, Model: exactly these fields. */
export const MODEL_SCHEMA = {
  type: 'object',
  required: ['id', 'provider', 'name', 'contextLength', 'capabilities', 'pricing'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    provider: { type: 'string' },
    name: { type: 'string' },
    contextLength: nullableNumber,
    capabilities: { type: 'array', items: { type: 'string' } },
    pricing: {
      type: 'object',
      required: ['input', 'output'],
      additionalProperties: false,
      properties: { input: nullableNumber, output: nullableNumber },
      description: 'US dollars per million tokens; null when unknown.',
    },
  },
} as const;
export type Model = FromSchema<typeof MODEL_SCHEMA>;

/** What the catalog answers (201) to `POST /internal/dev/installations` (development only). */
export interface DevInstallation {
  installation: { id: number; account: string; provider: 'local' };
  repos: { id: string; full_name: string; default_branch: string | null }[];
}
