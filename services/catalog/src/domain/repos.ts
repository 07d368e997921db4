/** Repositories as the contract names them (the shape, `Repo`, is @ars/contract's). */

export const REPO_LIMIT = { min: 1, max: 200, default: 100, name: 'limit' } as const;

/** `q` is a case-insensitive substring of `owner/repo`; returned as a literal (escaped) pattern. */
export function substringPattern(q: string): RegExp {
  return new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
}
