import { hasControlCharacter } from './characters.js';

/**
 * Why a repository-relative path (`rootDirectory`) is unsafe, or null when it is fine: relative,
 * no parent traversal, no empty or `.` components trickery, no control characters.
 */
export function relativePathProblem(path: string): string | null {
  if (path.length === 0) return 'must not be empty';
  if (path.length > 1024) return 'must be at most 1024 characters';
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path) || path.startsWith('\\')) return 'must be a relative path';
  if (hasControlCharacter(path)) return 'must not contain control characters';
  if (path.includes('\\')) return 'must use "/" as the separator';
  const components = path.replace(/\/+$/, '').split('/');
  if (components.some((c) => c === '..')) return 'must not contain parent traversal ("..")';
  if (components.some((c) => c === '')) return 'must not contain empty components ("//")';
  return null;
}

export function isSafeRelativePath(path: string): boolean {
  return relativePathProblem(path) === null;
}
