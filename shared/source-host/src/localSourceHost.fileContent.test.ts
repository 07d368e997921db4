import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalSourceHost } from './localSourceHost.js';
import type { RepositoryRef } from './sourceHost.js';

const IDENTITY = ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.test'];
const MILLION = 'x'.repeat(999_999) + '\n';

let root: string;
let work: string;
let repo: RepositoryRef;
let host: LocalSourceHost;
let baseSha: string;
let headSha: string;

/** Runs git in the working clone (argument vector, no shell). */
const git = (...args: string[]): string =>
  execFileSync('git', [...IDENTITY, ...args], { cwd: work })
    .toString()
    .trim();

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'ars-source-host-content-'));
  host = new LocalSourceHost(root);
  const created = await host.createRepository({ owner: 'acme', name: 'widgets', files: { 'app.ts': 'export const side = "base";\n' } });
  repo = { installation: { account: 'acme', externalId: null }, fullName: 'acme/widgets' };
  work = join(root, 'work');
  execFileSync('git', ['clone', '--quiet', created.cloneUrl, work]);
  baseSha = git('rev-parse', 'HEAD');
  git('checkout', '--quiet', '-b', 'feature');
  mkdirSync(join(work, 'src', 'lib'), { recursive: true });
  writeFileSync(join(work, 'app.ts'), 'export const side = "head";\n');
  writeFileSync(join(work, 'src', 'lib', 'util.ts'), 'export const util = 1;\n');
  writeFileSync(join(work, 'million.txt'), MILLION);
  writeFileSync(join(work, 'over.txt'), MILLION + 'x');
  symlinkSync('app.ts', join(work, 'link.ts'));
  git('add', '-A');
  git('commit', '--quiet', '-m', 'Head side');
  git('push', '--quiet', 'origin', 'HEAD');
  headSha = git('rev-parse', 'HEAD');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a file’s text is read at the commit or ref asked for: the head and the base each answer their own content', () => {
  test('app.ts at the head commit and at the base commit, by SHA and by branch; a nested path', async () => {
    expect(await host.fileContent(repo, headSha, 'app.ts')).toBe('export const side = "head";\n');
    expect(await host.fileContent(repo, baseSha, 'app.ts')).toBe('export const side = "base";\n');
    expect(await host.fileContent(repo, 'feature', 'app.ts')).toBe('export const side = "head";\n');
    expect(await host.fileContent(repo, 'main', 'app.ts')).toBe('export const side = "base";\n');
    expect(await host.fileContent(repo, headSha, 'src/lib/util.ts')).toBe('export const util = 1;\n');
  });
});

describe('a file that does not exist there is null: a missing path, a path only on another commit, an unknown ref', () => {
  test('missing path, src/lib/util.ts at the base, a path under a file, an unknown ref or one starting with -', async () => {
    expect(await host.fileContent(repo, headSha, 'missing.ts')).toBeNull();
    expect(await host.fileContent(repo, baseSha, 'src/lib/util.ts')).toBeNull();
    expect(await host.fileContent(repo, headSha, 'app.ts/inner')).toBeNull();
    expect(await host.fileContent(repo, 'no-such-branch', 'app.ts')).toBeNull();
    expect(await host.fileContent(repo, '0'.repeat(40), 'app.ts')).toBeNull();
    expect(await host.fileContent(repo, '--output=/tmp/x', 'app.ts')).toBeNull();
  });
});

describe('a directory or a symlink is not a regular file: null', () => {
  test('src, src/lib, the root and a symlink to app.ts', async () => {
    expect(await host.fileContent(repo, headSha, 'src')).toBeNull();
    expect(await host.fileContent(repo, headSha, 'src/lib')).toBeNull();
    expect(await host.fileContent(repo, headSha, '')).toBeNull();
    expect(await host.fileContent(repo, headSha, 'link.ts')).toBeNull();
  });
});

describe('a file of at most 1,000,000 bytes is read; a larger file is null', () => {
  test('1,000,000 bytes → its text; 1,000,001 bytes → null', async () => {
    expect(await host.fileContent(repo, headSha, 'million.txt')).toBe(MILLION);
    expect(await host.fileContent(repo, headSha, 'over.txt')).toBeNull();
  });
});

describe('a path with a .. segment, a . or empty segment, or a NUL is refused: null', () => {
  test('src/../app.ts, .., ./app.ts, /app.ts, src//lib/util.ts and a NUL', async () => {
    for (const path of ['src/../app.ts', '..', '../widgets.git/HEAD', './app.ts', '/app.ts', 'src//lib/util.ts', 'app.ts\0']) {
      expect(await host.fileContent(repo, headSha, path)).toBeNull();
    }
  });
});

describe('a file is read only through the repository owner’s installation', () => {
  test('another account’s installation or a missing repository: not_found', async () => {
    await expect(
      host.fileContent({ installation: { account: 'someone', externalId: null }, fullName: 'acme/widgets' }, headSha, 'app.ts'),
    ).rejects.toMatchObject({
      kind: 'not_found',
      status: 404,
    });
    await expect(host.fileContent({ installation: repo.installation, fullName: 'acme/missing' }, headSha, 'app.ts')).rejects.toMatchObject({
      kind: 'not_found',
    });
  });
});
