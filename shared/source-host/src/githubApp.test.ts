import { generateKeyPairSync } from 'node:crypto';
import { startGitHubStandIn, type GitHubStandIn, type StandInRepository } from '@ars/github-stand-in';
import { GitHubAppSourceHost } from './githubApp.js';

const APP_ID = '424242';
const keyPair = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const { privateKey, publicKey } = keyPair();
/** GitHub hands out PKCS#1 PEM keys ("BEGIN RSA PRIVATE KEY"). */
const privatePem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

const manyRepos: StandInRepository[] = Array.from({ length: 150 }, (_, i) => ({
  owner: 'acme',
  name: `service-${String(i).padStart(3, '0')}`,
  defaultBranch: i === 0 ? 'trunk' : 'main',
}));

let github: GitHubStandIn;
beforeAll(async () => {
  github = await startGitHubStandIn({ appId: APP_ID, publicKey, installations: { 7: manyRepos, 8: [{ owner: 'octo', name: 'one', defaultBranch: 'main' }] } });
});
afterAll(async () => {
  await github.close();
});

const host = (pem = privatePem) => new GitHubAppSourceHost({ appId: APP_ID, privateKey: pem, apiUrl: github.url });

describe('the GitHub App authenticates as the App with a valid RS256 JWT for its app id, then lists an installation’s repositories with an installation token', () => {
  test('every page of GET /installation/repositories is read (150 repositories, per_page 100)', async () => {
    const repos = await host().listRepositories({ account: 'acme', externalId: 7 });
    expect(repos).toHaveLength(150);
    expect(repos[0]).toEqual({
      externalId: expect.any(Number),
      fullName: 'acme/service-000',
      defaultBranch: 'trunk',
      cloneUrl: 'https://github.com/acme/service-000.git',
    });
    expect(repos[149]?.fullName).toBe('acme/service-149');
    expect(github.requests).toEqual(
      expect.arrayContaining([
        'POST /app/installations/7/access_tokens',
        'GET /installation/repositories?per_page=100&page=1',
        'GET /installation/repositories?per_page=100&page=2',
      ]),
    );
    expect(github.jwts.length).toBeGreaterThan(0);
    expect(github.jwts.every((jwt) => jwt.valid && String(jwt.iss) === APP_ID)).toBe(true);
  });
});

describe('the clone URL carries a fresh installation access token as GitHub documents (x-access-token)', () => {
  test('https://x-access-token:<minted token>@github.com/owner/repo.git; the token is reused while valid', async () => {
    const app = host();
    const url = await app.authenticatedCloneUrl({ account: 'octo', externalId: 8 }, { cloneUrl: 'https://github.com/octo/one.git' });
    const minted = github.minted.filter((m) => m.installationId === 8);
    expect(minted).toHaveLength(1);
    expect(url).toBe(`https://x-access-token:${minted[0]?.token ?? ''}@github.com/octo/one.git`);
    expect(await app.authenticatedCloneUrl({ account: 'octo', externalId: 8 }, { cloneUrl: 'https://github.com/octo/one.git' })).toBe(url);
    expect(github.minted.filter((m) => m.installationId === 8)).toHaveLength(1);
  });
});

describe('only an http: or https: clone URL carries the token; any other (a stand-in’s file:// URL of a local bare repository) is answered unchanged and mints none', () => {
  test('the file:// clone_url GitHub answers is handed back as is, as are ssh:// and scp-like (no URL) ones, without an installation id too; http:// gets the token', async () => {
    const fileUrl = 'file:///srv/ars/source-host/octo/mirrored.git';
    github.addInstallation(9, [{ owner: 'octo', name: 'mirrored', defaultBranch: 'main', cloneUrl: fileUrl }]);
    const app = host();
    const installation = { account: 'octo', externalId: 9 };
    expect(await app.authenticatedCloneUrl(installation, { cloneUrl: fileUrl })).toBe(fileUrl);
    expect(await app.authenticatedCloneUrl(installation, { cloneUrl: 'git@github.com:octo/mirrored.git' })).toBe('git@github.com:octo/mirrored.git');
    expect(await app.authenticatedCloneUrl(installation, { cloneUrl: 'ssh://git@github.com/octo/mirrored.git' })).toBe(
      'ssh://git@github.com/octo/mirrored.git',
    );
    expect(await app.authenticatedCloneUrl({ account: 'octo', externalId: null }, { cloneUrl: fileUrl })).toBe(fileUrl);
    expect(github.minted.filter((m) => m.installationId === 9)).toHaveLength(0);
    const [listed] = await app.listRepositories(installation);
    expect(listed).toEqual({ externalId: expect.any(Number), fullName: 'octo/mirrored', defaultBranch: 'main', cloneUrl: fileUrl });
    expect(await app.authenticatedCloneUrl(installation, { cloneUrl: listed?.cloneUrl ?? '' })).toBe(fileUrl);

    const url = await app.authenticatedCloneUrl(installation, { cloneUrl: 'http://git.internal:8080/octo/mirrored.git' });
    const token = github.minted.filter((m) => m.installationId === 9).at(-1)?.token ?? '';
    expect(url).toBe(`http://x-access-token:${token}@git.internal:8080/octo/mirrored.git`);
  });
});

describe('GitHub refuses what it would refuse', () => {
  test('an App key that is not the App’s: the JWT fails the signature check and nothing is listed', async () => {
    const otherPem = keyPair().privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    await expect(host(otherPem).listRepositories({ account: 'acme', externalId: 7 })).rejects.toMatchObject({
      name: 'SourceHostError',
      kind: 'unauthorized',
      status: 401,
    });
    expect(github.jwts.at(-1)).toMatchObject({ valid: false, reason: 'bad signature' });
  });

  test('an installation the App does not have is 404 from GitHub', async () => {
    await expect(host().listRepositories({ account: 'ghost', externalId: 99 })).rejects.toMatchObject({
      name: 'SourceHostError',
      kind: 'not_found',
      status: 404,
    });
  });

  test('a local installation (no GitHub id) is refused before any request', async () => {
    await expect(host().listRepositories({ account: 'acme', externalId: null })).rejects.toThrow('has no GitHub installation id');
  });
});

describe('constructed with an installation token source instead of the App’s key (pr-review: the catalog hands out tokens), it uses the tokens it is given and mints none', () => {
  test('listRepositories and accessToken with a token the catalog minted; the stand-in sees no new mint, and a token it never minted is refused', async () => {
    const catalog = host();
    const granted = await catalog.installationToken(8);
    const mintedBefore = github.minted.length;
    const asked: number[] = [];
    const reviewer = new GitHubAppSourceHost({
      apiUrl: github.url,
      installationToken: async (installationId) => {
        asked.push(installationId);
        return granted;
      },
    });
    expect((await reviewer.listRepositories({ account: 'octo', externalId: 8 })).map((repo) => repo.fullName)).toEqual(['octo/one']);
    expect(await reviewer.accessToken({ account: 'octo', externalId: 8 })).toEqual(granted);
    expect(asked).toEqual([8, 8]);
    expect(github.minted).toHaveLength(mintedBefore);
    const forged = new GitHubAppSourceHost({ apiUrl: github.url, installationToken: async () => ({ token: 'ghs_forged', expiresAt: granted.expiresAt }) });
    await expect(forged.listRepositories({ account: 'octo', externalId: 8 })).rejects.toMatchObject({ kind: 'unauthorized', status: 401 });
  });
});
