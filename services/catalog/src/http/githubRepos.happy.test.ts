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

/** `GET repos/:repoId` of `<account>/app` in a new user's GitHub installation with that id. */
async function getRepoOfNewInstallation(account: string, externalId: number) {
  const user = catalog.newUser();
  const installation = await new InstallationStore(mongo.db).create({ userId: user, account, provider: 'github', externalId });
  const repo = await new RepoStore(mongo.db).upsert({
    userId: user,
    installationId: installation._id,
    fullName: `${account}/app`,
    defaultBranch: 'main',
    cloneUrl: `https://github.com/${account}/app.git`,
  });
  return catalog.call('GET', `/internal/users/${user}/repos/${repo._id}`);
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
