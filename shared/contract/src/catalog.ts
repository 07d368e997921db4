/** CONTRACT.md, Repo (`RepoItem`): exactly these fields. */
export interface Repo {
  id: string;
  full_name: string;
  installation_id: number;
  default_branch: string | null;
  root_directory: string | null;
}

/**
 * A user's repository as the catalog answers it inside the system: the contract's Repo and the URL
 * a sandbox clones with (it may carry a short-lived token: never log it, never show it publicly).
 */
export type CatalogRepo = Repo & { clone_url: string };

/** CONTRACT.md, Agent: exactly these fields. */
export interface Agent {
  id: string;
  name: string;
  slug: string | null;
  model: string;
  description: string | null;
  category: string | null;
  preset: boolean;
}

/** CONTRACT.md, Model: exactly these fields. */
export interface Model {
  id: string;
  provider: string;
  name: string;
  contextLength: number | null;
  capabilities: string[];
  pricing: { input: number | null; output: number | null };
}

/** What the catalog answers (201) to `POST /internal/dev/installations` (development only). */
export interface DevInstallation {
  installation: { id: number; account: string; provider: 'local' };
  repos: { id: string; full_name: string; default_branch: string | null }[];
}
