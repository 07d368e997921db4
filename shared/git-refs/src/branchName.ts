import { hasControlCharacter } from './characters.js';

/**
 * Why a branch name is not a valid Git ref, or null when it is: the rules of
 * `git check-ref-format --branch` (git-check-ref-format(1)), checked without running git, and the
 * names git may accept that cannot be a branch of a run here: `HEAD` and `@` (they name the current
 * commit, not a branch), a leading `-` (read as an option by git's commands), `refs/…` (a full ref,
 * which `git checkout`/`push` would not treat as the branch `refs/heads/<name>`).
 */
export function branchNameProblem(name: string): string | null {
  if (name.length === 0) return 'must not be empty';
  if (name.length > 255) return 'must be at most 255 characters';
  if (name === '@') return 'must not be "@"';
  if (name === 'HEAD') return 'must not be "HEAD"';
  if (name.startsWith('-')) return 'must not start with "-"';
  if (name.startsWith('refs/')) return 'must not start with "refs/" (a branch name, not a full ref)';
  if (name.startsWith('/') || name.endsWith('/')) return 'must not start or end with "/"';
  if (name.includes('//')) return 'must not contain "//"';
  if (name.includes('..')) return 'must not contain ".."';
  if (name.includes('@{')) return 'must not contain "@{"';
  if (name.endsWith('.')) return 'must not end with "."';
  if (hasControlCharacter(name) || /[ ~^:?*[\\]/.test(name)) return 'must not contain spaces, control characters or any of ~ ^ : ? * [ \\';
  for (const component of name.split('/')) {
    if (component.startsWith('.')) return 'no path component may start with "."';
    if (component.endsWith('.lock')) return 'no path component may end with ".lock"';
  }
  return null;
}

export function isValidBranchName(name: string): boolean {
  return branchNameProblem(name) === null;
}
