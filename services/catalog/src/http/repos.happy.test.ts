import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCatalogHarness, type CatalogHarness } from '../testing/catalogHarness.js';
import type { Repo } from '@ars/contract';

let catalog: CatalogHarness;
beforeAll(async () => {
  catalog = await startCatalogHarness();
});
afterAll(async () => {
  await catalog.stop();
});

describe('the dev installation route makes a new installation with at least two real, cloneable git repositories', () => {
  test('default: 2 repositories, branch main, one commit each, cloneable through the repo clone_url', async () => {
    const user = catalog.newUser();
    const dev = await catalog.devInstallation(user);
    expect(dev.installation).toEqual({ id: expect.any(Number), account: expect.stringMatching(/^dev-/), provider: 'local' });
    expect(Number.isInteger(dev.installation.id)).toBe(true);
    expect(dev.repos).toHaveLength(2);
    const workdir = mkdtempSync(join(tmpdir(), 'ars-clone-'));
    try {
      for (const [index, repo] of dev.repos.entries()) {
        expect(repo.full_name.startsWith(`${dev.installation.account}/`)).toBe(true);
        expect(repo.default_branch).toBe('main');
        const { repo: detail } = (await catalog.call<{ repo: Repo & { clone_url: string } }>('GET', `/internal/users/${user}/repos/${repo.id}`)).data;
        expect(detail).toEqual({
          id: repo.id,
          full_name: repo.full_name,
          installation_id: dev.installation.id,
          default_branch: 'main',
          root_directory: null,
          clone_url: expect.stringMatching(/^file:\/\//),
        });
        const clone = join(workdir, String(index));
        execFileSync('git', ['clone', '--quiet', detail.clone_url, clone]);
        expect(execFileSync('git', ['rev-parse', '--abbrev-ref', 'HEAD'], { cwd: clone }).toString().trim()).toBe('main');
        expect(execFileSync('git', ['rev-list', '--count', 'HEAD'], { cwd: clone }).toString().trim()).toBe('1');
      }
    } finally {
      rmSync(workdir, { recursive: true, force: true });
    }
  });

  test('repoCount asks for more; each call gets its own owner and installation id', async () => {
    const user = catalog.newUser();
    const first = await catalog.devInstallation(user, 4);
    const second = await catalog.devInstallation(user);
    expect(first.repos).toHaveLength(4);
    expect(second.installation.id).toBeGreaterThan(first.installation.id);
    expect(second.installation.account).not.toBe(first.installation.account);
    const { installation } = (await catalog.call<{ installation: unknown }>('GET', `/internal/users/${user}/installations/${first.installation.id}`)).data;
    expect(installation).toEqual(first.installation);
  });
});

describe('GET repos lists the user’s repositories by full_name with the contract’s Repo fields exactly', () => {
  test('every installation of the user, ordered, no extra fields', async () => {
    const user = catalog.newUser();
    const a = await catalog.devInstallation(user, 3);
    const b = await catalog.devInstallation(user);
    const { repos } = (await catalog.call<{ repos: Repo[] }>('GET', `/internal/users/${user}/repos`)).data;
    const names = [...a.repos, ...b.repos].map((r) => r.full_name).sort();
    expect(repos.map((r) => r.full_name)).toEqual(names);
    for (const repo of repos) expect(Object.keys(repo).sort()).toEqual(['default_branch', 'full_name', 'id', 'installation_id', 'root_directory']);
  });
});

describe('q is a case-insensitive substring of owner/repo', () => {
  test('upper-case q matches lower-case names; owner part matches too; regex characters are literal', async () => {
    const user = catalog.newUser();
    const dev = await catalog.devInstallation(user, 3);
    const list = async (q: string) =>
      (await catalog.call<{ repos: Repo[] }>('GET', `/internal/users/${user}/repos?q=${encodeURIComponent(q)}`)).data.repos.map((r) => r.full_name);
    expect(await list('API-SERV')).toEqual([`${dev.installation.account}/api-server`]);
    expect(await list('Web-App')).toEqual([`${dev.installation.account}/web-app`]);
    expect(await list(dev.installation.account.toUpperCase())).toHaveLength(3);
    expect(await list('/INFRA')).toEqual([`${dev.installation.account}/infra`]);
    expect(await list('.*')).toEqual([]);
    expect(await list('no-such-repo')).toEqual([]);
  });
});

describe('q reaches the database as a literal: control characters (NUL included) match nothing, never an error', () => {
  test.each([
    ['NUL', '\u0000'],
    ['a name then NUL', 'api\u0000'],
    ['C0 controls', '\u0001\u001f'],
    ['DEL', '\u007f'],
    ['a C1 control', '\u0085'],
    ['CR LF inside a name', 'api\r\nserver'],
  ])('%s → 200 and no repository', async (_what, q) => {
    const user = catalog.newUser();
    await catalog.devInstallation(user, 3);
    const answer = await catalog.call<{ repos: Repo[] }>('GET', `/internal/users/${user}/repos?q=${encodeURIComponent(q)}`);
    expect(answer.status).toBe(200);
    expect(answer.data.repos).toEqual([]);
  });
});

describe('limit is 1 to 200, default 100; values outside the range are clamped', () => {
  test('limit=2 gives 2; limit=0 gives 1; limit=-3 gives 1; limit=1000 gives all (at most 200)', async () => {
    const user = catalog.newUser();
    await catalog.devInstallation(user, 5);
    const count = async (limit: string) => (await catalog.call<{ repos: Repo[] }>('GET', `/internal/users/${user}/repos?limit=${limit}`)).data.repos.length;
    expect(await count('2')).toBe(2);
    expect(await count('0')).toBe(1);
    expect(await count('-3')).toBe(1);
    expect(await count('1000')).toBe(5);
  });
  test('a limit past the safe integers (99999999999999999999, 400 nines) is clamped like any other; -99999999999999999999 gives 1', async () => {
    const user = catalog.newUser();
    await catalog.devInstallation(user, 3);
    const count = async (limit: string) => (await catalog.call<{ repos: Repo[] }>('GET', `/internal/users/${user}/repos?limit=${limit}`)).data.repos.length;
    expect(await count('99999999999999999999')).toBe(3);
    expect(await count('9'.repeat(400))).toBe(3);
    expect(await count('-99999999999999999999')).toBe(1);
  });
  test('a limit that is not an integer is 400 "limit must be an integer"', async () => {
    const user = catalog.newUser();
    for (const limit of ['abc', '1.5']) {
      const answer = await catalog.call('GET', `/internal/users/${user}/repos?limit=${limit}`);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: 'limit must be an integer' } });
    }
  });
});
