/** Repositories as the contract names them. */

/** The contract's Repo (`RepoItem`): exactly its fields. */
export interface Repo {
  id: string;
  full_name: string;
  installation_id: number;
  default_branch: string | null;
  root_directory: string | null;
}

export const REPO_LIMIT = { min: 1, max: 200, default: 100, name: 'limit' } as const;

/** `q` is a case-insensitive substring of `owner/repo`; returned as a literal (escaped) pattern. */
export function substringPattern(q: string): RegExp {
  return new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
}
