import { execFileSync } from 'node:child_process';
import { branchNameProblem, isValidBranchName, isSafeRelativePath, relativePathProblem } from '@ars/git-refs';

function gitAccepts(name: string): boolean {
  try {
    execFileSync('git', ['check-ref-format', '--branch', name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const VALID = ['main', 'feature/login', 'release-1.2', 'fix_issue-42', 'user/name/topic', 'a', 'v1.0', 'ümlaut', 'agent/run-abc123'];
const INVALID = [
  '',
  'a..b',
  '-x',
  '/lead',
  'trail/',
  'a//b',
  'a b',
  'a~b',
  'a^b',
  'a:b',
  'a?b',
  'a*b',
  'a[b',
  'a\\b',
  'end.',
  '.hidden',
  'a/.b',
  'x.lock',
  'a/b.lock',
  'a@{b',
  '@',
  'tab\tname',
];

describe('branch names must be valid Git refs by git check-ref-format rules', () => {
  test.each(VALID)('%j is valid, as git says', (name) => {
    expect(isValidBranchName(name)).toBe(true);
    expect(gitAccepts(name)).toBe(true);
  });
  test.each(INVALID)('%j is invalid, as git says', (name) => {
    expect(branchNameProblem(name)).not.toBeNull();
    // `--branch` expands "@" to the current branch (HEAD), so git is no judge of that one name.
    if (name !== '' && name !== '@') expect(gitAccepts(name)).toBe(false);
  });
});

describe('names git may accept that cannot be a branch here are refused: HEAD, @, a leading "-", refs/…', () => {
  test.each([
    ['HEAD', 'must not be "HEAD"'],
    ['@', 'must not be "@"'],
    ['-x', 'must not start with "-"'],
    ['--force', 'must not start with "-"'],
    ['refs/heads/main', 'must not start with "refs/"'],
    ['refs/tags/v1', 'must not start with "refs/"'],
  ])('%j: %s', (name, problem) => {
    expect(branchNameProblem(name)).toContain(problem);
  });
  test('names that only contain those words stay valid, as git says', () => {
    for (const name of ['head', 'HEADS', 'x/HEAD', 'my-refs/x', 'refs', 'feature-@home']) {
      expect(isValidBranchName(name)).toBe(true);
      expect(gitAccepts(name)).toBe(true);
    }
  });
});

describe('rootDirectory must be a relative path without parent traversal', () => {
  test.each(['packages/api', 'apps/web/', 'a', 'a/b/c', '.config', 'dir.with.dots'])('%j is fine', (path) => {
    expect(isSafeRelativePath(path)).toBe(true);
  });
  test.each([
    ['../x', 'parent traversal'],
    ['a/../../b', 'parent traversal'],
    ['..', 'parent traversal'],
    ['/abs', 'relative'],
    ['C:/win', 'relative'],
    ['a//b', 'empty components'],
    ['a\\b', 'separator'],
    ['', 'empty'],
  ])('%j is refused (%s)', (path, reason) => {
    expect(relativePathProblem(path)).toContain(reason);
  });
});
