import { generateKeyPairSync } from 'node:crypto';
import { startGitHubStandIn, type GitHubStandIn } from '@ars/github-stand-in';
import { createLogger } from '@ars/logger';
import { connectMongo, type Mongo } from '@ars/mongo';
import { GitHubAppSourceHost } from '@ars/source-host';
import { testInfrastructure } from '@ars/testenv';
import { syncRepositories } from '../sourceHost/syncRepositories.js';
import { InstallationStore } from '../store/installations.js';
import { RepoStore } from '../store/repos.js';
import { startCatalogHarness, type CatalogHarness } from '../testing/catalogHarness.js';

const APP_ID = '777';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privatePem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

let github: GitHubStandIn;
let catalog: CatalogHarness;
let mongo: Mongo;
beforeAll(async () => {
  github = await startGitHubStandIn({
    appId: APP_ID,
    publicKey,
    installations: {
      31: [
        { owner: 'Acme-Corp', name: 'Payments', defaultBranch: 'main' },
        { owner: 'Acme-Corp', name: 'billing', defaultBranch: 'develop' },
      ],
    },
  });
  // The key as an environment variable usually carries its newlines as `\n`.
  catalog = await startCatalogHarness({ GITHUB_APP_ID: APP_ID, GITHUB_APP_PRIVATE_KEY: privatePem.replace(/\n/g, '\\n'), GITHUB_API_URL: github.url });
  mongo = await connectMongo({
    url: testInfrastructure().mongoUrl,
    dbName: catalog.dbName,
    logger: createLogger({ service: 'test', level: 'silent' }),
    appName: 'test',
  });
});
afterAll(async () => {
  await mongo.close();
  await catalog.stop();
  await github.close();
});

/** `<account>/app` in a new user's GitHub installation with that id. */
async function repoOfNewInstallation(account: string, externalId: number): Promise<{ user: string; repoId: string }> {
  const user = catalog.newUser();
  const installation = await new InstallationStore(mongo.db).create({ userId: user, account, provider: 'github', externalId });
  const repo = await new RepoStore(mongo.db).upsert({
    userId: user,
    installationId: installation._id,
    fullName: `${account}/app`,
    defaultBranch: 'main',
    cloneUrl: `https://github.com/${account}/app.git`,
  });
  return { user, repoId: repo._id };
}

/** `GET repos/:repoId` of `<account>/app` in a new user's GitHub installation with that id. */
async function getRepoOfNewInstallation(account: string, externalId: number) {
  const { user, repoId } = await repoOfNewInstallation(account, externalId);
  return catalog.call('GET', `/internal/users/${user}/repos/${repoId}`);
}

describe('a GitHub installation’s repositories are imported through the App and served like local ones; clone_url carries an installation token', () => {
  test('sync, list by full_name (q any case), get with an x-access-token clone URL', async () => {
    const user = catalog.newUser();
    const installation = await new InstallationStore(mongo.db).create({ userId: user, account: 'Acme-Corp', provider: 'github', externalId: 31 });
    const host = new GitHubAppSourceHost({ appId: APP_ID, privateKey: privatePem, apiUrl: github.url });
    await syncRepositories(host, installation, new RepoStore(mongo.db));

    const { repos } = (
      await catalog.call<{ repos: { id: string; full_name: string; default_branch: string; installation_id: number }[] }>(
        'GET',
        `/internal/users/${user}/repos?q=acme-corp/PAY`,
      )
    ).data;
    expect(repos).toEqual([
      { id: expect.any(String), full_name: 'Acme-Corp/Payments', installation_id: installation._id, default_branch: 'main', root_directory: null },
    ]);
    const all = (await catalog.call<{ repos: { full_name: string }[] }>('GET', `/internal/users/${user}/repos`)).data.repos.map((r) => r.full_name);
    expect(all).toEqual(['Acme-Corp/Payments', 'Acme-Corp/billing']);

    const { repo } = (await catalog.call<{ repo: { clone_url: string } }>('GET', `/internal/users/${user}/repos/${repos[0]?.id ?? ''}`)).data;
    const token = github.minted.at(-1)?.token ?? 'none';
    expect(repo.clone_url).toBe(`https://x-access-token:${token}@github.com/Acme-Corp/Payments.git`);
    expect((await catalog.call('GET', `/internal/users/${user}/installations/${installation._id}`)).data).toEqual({
      installation: { id: installation._id, account: 'Acme-Corp', provider: 'github' },
    });
    for (const line of catalog.logLines) expect(line).not.toContain(token);
  });
});

describe('a GitHub installation the App no longer has: the repository answers 409 CONFLICT (no source-host access token)', () => {
  test('GitHub answers 404 for the token → 409', async () => {
    const answer = await getRepoOfNewInstallation('Gone-Org', 32);
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({ ok: false, error: { code: 'CONFLICT', message: 'No source-host access token for the repository (github answered 404)' } });
  });
});

describe('a rate-limited GitHub is a failure to wait out, not a missing token: 503 SERVICE_UNAVAILABLE', () => {
  test('GitHub answers 429 with Retry-After for the token → 503', async () => {
    github.addInstallation(33, [{ owner: 'Busy-Org', name: 'app', defaultBranch: 'main' }]);
    github.failNext({ method: 'POST', path: '/app/installations/33/access_tokens', status: 429, retryAfterSeconds: 30 });
    const answer = await getRepoOfNewInstallation('Busy-Org', 33);
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE' } });
  });
});

describe('POST repos/:repoId/access hands out what reaching the repository takes: the catalog keeps the App’s key, a caller gets a short-lived token', () => {
  test('GitHub: the installation and a freshly minted installation token, which reaches the repository through a token-fed adapter', async () => {
    github.addInstallation(34, [{ owner: 'Review-Org', name: 'app', defaultBranch: 'main' }]);
    const { user, repoId } = await repoOfNewInstallation('Review-Org', 34);
    const answer = await catalog.call<{ access: { provider: string; fullName: string; installation: unknown; token: string; expiresAt: string } }>(
      'POST',
      `/internal/users/${user}/repos/${repoId}/access`,
      {},
    );
    expect(answer.status).toBe(200);
    const { access } = answer.data;
    expect(access).toMatchObject({ provider: 'github', fullName: 'Review-Org/app', installation: { account: 'Review-Org', externalId: 34 } });
    expect(github.minted).toContainEqual({ installationId: 34, token: access.token });
    expect(Date.parse(access.expiresAt)).toBeGreaterThan(Date.now());
    const reviewer = new GitHubAppSourceHost({ apiUrl: github.url, installationToken: async () => ({ token: access.token, expiresAt: access.expiresAt }) });
    expect((await reviewer.listRepositories({ account: 'Review-Org', externalId: 34 })).map((repo) => repo.fullName)).toEqual(['Review-Org/app']);
  });

  test('an installation the App no longer has is 409 CONFLICT, as for the clone URL; another user’s repository is 404', async () => {
    const gone = await repoOfNewInstallation('Gone-Again', 35);
    const refused = await catalog.call('POST', `/internal/users/${gone.user}/repos/${gone.repoId}/access`, {});
    expect([refused.status, refused.body]).toEqual([
      409,
      { ok: false, error: { code: 'CONFLICT', message: 'No source-host access token for the repository (github answered 404)' } },
    ]);
    const foreign = await catalog.call('POST', `/internal/users/${catalog.newUser()}/repos/${gone.repoId}/access`, {});
    expect([foreign.status, foreign.body]).toEqual([404, { ok: false, error: { code: 'NOT_FOUND', message: 'Repository not found' } }]);
  });

  test('the local source host: the repository’s full name and no token (it is reached on disk)', async () => {
    const user = catalog.newUser();
    const dev = await catalog.devInstallation(user);
    const repo = dev.repos[0];
    const answer = await catalog.call<{ access: unknown }>('POST', `/internal/users/${user}/repos/${repo?.id ?? ''}/access`, {});
    expect(answer.data.access).toEqual({
      provider: 'local',
      installationId: dev.installation.id,
      fullName: repo?.full_name,
      installation: { account: expect.any(String), externalId: null },
      token: null,
      expiresAt: null,
    });
  });
});

describe('GET /internal/source-hosts/github/installations/:externalId/repos/:owner/:name names whose repository a GitHub delivery is about', () => {
  test('the user, repository and installation of that GitHub installation id and full name; 404 for another id or name', async () => {
    const { user, repoId } = await repoOfNewInstallation('Hook-Org', 52);
    const found = await catalog.call<{ repo: unknown }>('GET', '/internal/source-hosts/github/installations/52/repos/Hook-Org/app');
    expect(found.status).toBe(200);
    expect(found.data.repo).toEqual({ userId: user, repoId, installationId: expect.any(Number) });
    for (const path of [
      '/internal/source-hosts/github/installations/53/repos/Hook-Org/app',
      '/internal/source-hosts/github/installations/52/repos/Hook-Org/other',
    ]) {
      const missing = await catalog.call('GET', path);
      expect([missing.status, missing.body]).toEqual([404, { ok: false, error: { code: 'NOT_FOUND', message: 'Repository not found' } }]);
    }
  });
});
