// The catalog's GitHub side against the GitHub stand-in (deploy/local/github-stand-in, written from
// GitHub's documentation): a user reaches exactly what GitHub lists for their user-to-server token;
// the App's deliveries (installation, installation_repositories, repository) keep the catalog true
// in any order and twice; clone URLs and access carry installation tokens minted with the App's key.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startGitHubStandIn, type GitHubStandIn, type WebhookDelivery } from '@ars/github-stand-in';
import { GitHubAppSourceHost } from '@ars/source-host';
import type { GitHubConnection } from '../sourceHost/gitHubUserReach.js';
import { startCatalogHarness, type CatalogHarness } from '../testing/catalogHarness.js';
import type { Repo } from '@ars/contract';

const APP_ID = '777';
const CLIENT = { clientId: 'Iv23.catalog-test', clientSecret: 'catalog-test-client-secret' };
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privatePem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

let github: GitHubStandIn;
let catalog: CatalogHarness;
let webhookReceiver: Server;
let nextUser = 600;

/** The App's webhook: each delivery handed to the catalog as pr-review hands it over (after its signature check). */
async function startWebhookReceiver(): Promise<string> {
  webhookReceiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      void catalog
        .call('POST', '/internal/source-hosts/github/deliveries', {
          event: String(req.headers['x-github-event']),
          deliveryId: String(req.headers['x-github-delivery']),
          payload: JSON.parse(body) as unknown,
        })
        .then((answer) => res.writeHead(answer.status === 200 ? 202 : answer.status).end());
    });
  });
  await new Promise<void>((resolve) => webhookReceiver.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(webhookReceiver.address() as AddressInfo).port}/webhooks/github`;
}

beforeAll(async () => {
  const webhookUrl = await startWebhookReceiver();
  github = await startGitHubStandIn({
    appId: APP_ID,
    publicKey,
    oauthApp: { ...CLIENT, name: 'Agent Run Service', callbackUrls: ['http://127.0.0.1:9/settings/github/callback'] },
    app: { slug: 'agent-run-service', webhook: { url: webhookUrl, secret: 'catalog-test-webhook-secret' } },
  });
  // The key as an environment variable usually carries its newlines as `\n`.
  catalog = await startCatalogHarness({
    GITHUB_APP_ID: APP_ID,
    GITHUB_APP_PRIVATE_KEY: privatePem.replace(/\n/g, '\\n'),
    GITHUB_API_URL: github.url,
    GITHUB_WEB_URL: github.webUrl,
    GITHUB_CLIENT_ID: CLIENT.clientId,
    GITHUB_CLIENT_SECRET: CLIENT.clientSecret,
  });
});
afterAll(async () => {
  await catalog?.stop();
  await github?.close();
  await new Promise((resolve) => webhookReceiver?.close(resolve));
});

/** A GitHub organization with the App installed on these repositories (its installation id is GitHub's). */
function organizationWithApp(login: string, installationId: number, names: string[]): void {
  github.addAccount({ login, type: 'Organization', repositories: names.map((name) => ({ name, defaultBranch: 'main' })) });
  github.addInstallation(
    installationId,
    names.map((name) => ({ owner: login, name, defaultBranch: 'main' })),
  );
}

/** A GitHub user, active member of these organizations, who authorized the App: their user-to-server tokens. */
function gitHubUser(orgs: string[]): { login: string; tokens: ReturnType<GitHubStandIn['authorizeUser']> } {
  nextUser += 1;
  const login = `octo-${nextUser}`;
  github.addUser({ id: nextUser, login, orgs: Object.fromEntries(orgs.map((org) => [org, { role: 'member' as const, state: 'active' as const }])) });
  return { login, tokens: github.authorizeUser(login) };
}

async function connect(userId: string, tokens: { accessToken: string; refreshToken?: string | null; refreshTokenExpiresIn?: number | null }) {
  return catalog.call<{ github: GitHubConnection }>('PUT', `/internal/users/${userId}/github`, tokens);
}

const reposOf = async (userId: string, query = ''): Promise<Repo[]> =>
  (await catalog.call<{ repos: Repo[] }>('GET', `/internal/users/${userId}/repos${query}`)).data.repos;

const NOT_FOUND = { ok: false, error: { code: 'NOT_FOUND', message: 'Repository not found' } };

describe('a user reaches exactly what GitHub lists for their user-to-server token', () => {
  test('the installations of their organizations and the repositories in them: listed (q any case), got with an installation token in clone_url', async () => {
    organizationWithApp('Acme-Corp', 31, ['Payments', 'billing']);
    const alice = gitHubUser(['Acme-Corp']);
    const userId = catalog.newUser();
    const connected = await connect(userId, alice.tokens);
    expect(connected.status).toBe(200);
    expect(connected.data.github).toMatchObject({
      login: alice.login,
      recheckable: true,
      installations: [{ externalId: 31, account: 'Acme-Corp', suspended: false, repositoryCount: 2 }],
    });
    const installationId = connected.data.github.installations[0]?.id ?? 0;

    expect(await reposOf(userId, '?q=acme-corp/PAY')).toEqual([
      { id: expect.any(String), full_name: 'Acme-Corp/Payments', installation_id: installationId, default_branch: 'main', root_directory: null },
    ]);
    const all = await reposOf(userId);
    expect(all.map((repo) => repo.full_name)).toEqual(['Acme-Corp/Payments', 'Acme-Corp/billing']);

    const { repo } = (await catalog.call<{ repo: { clone_url: string } }>('GET', `/internal/users/${userId}/repos/${all[0]?.id ?? ''}`)).data;
    const token = github.minted.at(-1)?.token ?? 'none';
    expect(repo.clone_url).toBe(`https://x-access-token:${token}@github.com/Acme-Corp/Payments.git`);
    expect((await catalog.call('GET', `/internal/users/${userId}/installations/${installationId}`)).data).toEqual({
      installation: { id: installationId, account: 'Acme-Corp', provider: 'github' },
    });
    for (const line of catalog.logLines) {
      expect(line).not.toContain(token);
      expect(line).not.toContain(alice.tokens.accessToken);
      expect(line).not.toContain(alice.tokens.refreshToken);
    }
  });

  test('a whole team shares one installation: each member sees the same repositories; someone outside the organization sees none of them (404)', async () => {
    organizationWithApp('Team-Org', 41, ['shared']);
    const [first, second, outsider] = [catalog.newUser(), catalog.newUser(), catalog.newUser()];
    await connect(first, gitHubUser(['Team-Org']).tokens);
    await connect(second, gitHubUser(['Team-Org']).tokens);
    const outsiderView = await connect(outsider, gitHubUser(['Elsewhere']).tokens);
    expect(outsiderView.data.github.installations).toEqual([]);

    const [firstRepos, secondRepos] = [await reposOf(first), await reposOf(second)];
    expect(firstRepos.map((repo) => repo.full_name)).toEqual(['Team-Org/shared']);
    expect(secondRepos).toEqual(firstRepos);
    expect(await reposOf(outsider)).toEqual([]);
    const foreign = await catalog.call('GET', `/internal/users/${outsider}/repos/${firstRepos[0]?.id ?? ''}`);
    expect([foreign.status, foreign.body]).toEqual([404, NOT_FOUND]);
    const installation = await catalog.call('GET', `/internal/users/${outsider}/installations/${firstRepos[0]?.installation_id ?? 0}`);
    expect(installation.status).toBe(404);
  });

  test('GitHub refusing the user token is 409 CONFLICT, and nothing is linked', async () => {
    const userId = catalog.newUser();
    const refused = await connect(userId, { accessToken: 'ghu_not-a-token-github-minted' });
    expect([refused.status, refused.body]).toEqual([409, { ok: false, error: { code: 'CONFLICT', message: 'GitHub refused the user token (401)' } }]);
    expect((await catalog.call('GET', `/internal/users/${userId}/github`)).data).toEqual({ github: null });
  });
});

describe('a recheck with the kept refresh token: someone GitHub no longer shows a repository to loses it', () => {
  test('removed from the organization → the recheck withdraws its installation and repositories (404), the refresh token rotated', async () => {
    organizationWithApp('Leaving-Org', 42, ['app']);
    const member = gitHubUser(['Leaving-Org']);
    const userId = catalog.newUser();
    await connect(userId, member.tokens);
    const [repo] = await reposOf(userId);
    expect(repo?.full_name).toBe('Leaving-Org/app');

    const still = await catalog.call<{ github: GitHubConnection }>('POST', `/internal/users/${userId}/github/recheck`, {});
    expect(still.data.github.installations.map((installation) => installation.account)).toEqual(['Leaving-Org']);

    github.addUser({ id: Number(member.login.slice(5)), login: member.login, orgs: {} });
    const rechecked = await catalog.call<{ github: GitHubConnection }>('POST', `/internal/users/${userId}/github/recheck`, {});
    expect(rechecked.data.github).toMatchObject({ login: member.login, installations: [] });
    expect(await reposOf(userId)).toEqual([]);
    const gone = await catalog.call('GET', `/internal/users/${userId}/repos/${repo?.id ?? ''}`);
    expect([gone.status, gone.body]).toEqual([404, NOT_FOUND]);
    // Three mints for the member: the authorization, then one per recheck (GitHub rotates on each refresh).
    expect(github.userTokens().filter((token) => token.login === member.login)).toHaveLength(3);
  });

  test('GitHub refusing the refresh token (the user revoked the App) ends the link and everything it gave: {github: null}', async () => {
    organizationWithApp('Revoked-Org', 43, ['app']);
    const member = gitHubUser(['Revoked-Org']);
    const userId = catalog.newUser();
    await connect(userId, member.tokens);
    expect(await reposOf(userId)).toHaveLength(1);
    github.revokeUserTokens(member.login);
    expect((await catalog.call('POST', `/internal/users/${userId}/github/recheck`, {})).data).toEqual({ github: null });
    expect(await reposOf(userId)).toEqual([]);
    expect((await catalog.call('GET', `/internal/users/${userId}/github`)).data).toEqual({ github: null });
  });

  test('a user with no link: {github: null}', async () => {
    expect((await catalog.call('POST', `/internal/users/${catalog.newUser()}/github/recheck`, {})).data).toEqual({ github: null });
  });
});

describe('the App’s deliveries keep the catalog true, in any order and twice', () => {
  let userId: string;
  const installationExternalId = 44;
  const lastDelivery = (): WebhookDelivery => {
    const delivery = github.appDeliveries().at(-1);
    if (!delivery) throw new Error('no delivery');
    return delivery;
  };

  beforeAll(async () => {
    organizationWithApp('Moving-Org', installationExternalId, ['alpha', 'beta', 'gamma']);
    userId = catalog.newUser();
    await connect(userId, gitHubUser(['Moving-Org']).tokens);
  });

  test('installation_repositories removed: the repository leaves GET /repos and is 404; the redelivery changes nothing', async () => {
    const before = await reposOf(userId);
    const beta = before.find((repo) => repo.full_name === 'Moving-Org/beta');
    await github.selectRepositories(installationExternalId, { remove: ['beta'] });
    expect(lastDelivery()).toMatchObject({ event: 'installation_repositories', status: 202 });
    expect((await reposOf(userId)).map((repo) => repo.full_name)).toEqual(['Moving-Org/alpha', 'Moving-Org/gamma']);
    const gone = await catalog.call('GET', `/internal/users/${userId}/repos/${beta?.id ?? ''}`);
    expect([gone.status, gone.body]).toEqual([404, NOT_FOUND]);
    expect(await github.redeliver(lastDelivery().deliveryId)).toMatchObject({ status: 202 });
    expect((await reposOf(userId)).map((repo) => repo.full_name)).toEqual(['Moving-Org/alpha', 'Moving-Org/gamma']);
  });

  test('repository renamed and default branch changed: the same id with the new name and branch', async () => {
    const alpha = (await reposOf(userId)).find((repo) => repo.full_name === 'Moving-Org/alpha');
    await github.renameRepository('Moving-Org/alpha', { name: 'alpha-2' });
    await github.setDefaultBranch('Moving-Org/alpha-2', 'trunk');
    const renamed = (await reposOf(userId)).find((repo) => repo.id === alpha?.id);
    expect(renamed).toMatchObject({ full_name: 'Moving-Org/alpha-2', default_branch: 'trunk' });
    expect((await reposOf(userId, '?q=ALPHA-2')).map((repo) => repo.id)).toEqual([alpha?.id]);
  });

  test('suspended: its repositories are 409 CONFLICT until unsuspended; an old suspend delivered after the unsuspend changes nothing', async () => {
    const [repo] = await reposOf(userId);
    await github.suspendInstallation(installationExternalId, true);
    const suspendDelivery = lastDelivery();
    const refused = await catalog.call('GET', `/internal/users/${userId}/repos/${repo?.id ?? ''}`);
    expect([refused.status, refused.body]).toEqual([
      409,
      { ok: false, error: { code: 'CONFLICT', message: 'The github installation of the repository is suspended' } },
    ]);
    await github.suspendInstallation(installationExternalId, false);
    expect((await catalog.call('GET', `/internal/users/${userId}/repos/${repo?.id ?? ''}`)).status).toBe(200);
    await github.redeliver(suspendDelivery.deliveryId);
    expect((await catalog.call('GET', `/internal/users/${userId}/repos/${repo?.id ?? ''}`)).status).toBe(200);
  });

  test('installation deleted: every repository gone (404, not listed, the installation 404); a late delivery of the installation brings nothing back', async () => {
    const before = await reposOf(userId);
    const selection = github.appDeliveries().find((delivery) => delivery.event === 'installation_repositories');
    await github.uninstall(installationExternalId);
    expect(await reposOf(userId)).toEqual([]);
    for (const repo of before) expect((await catalog.call('GET', `/internal/users/${userId}/repos/${repo.id}`)).status).toBe(404);
    expect((await catalog.call('GET', `/internal/users/${userId}/installations/${before[0]?.installation_id ?? 0}`)).status).toBe(404);
    await github.redeliver(selection?.deliveryId ?? '');
    expect(await reposOf(userId)).toEqual([]);
  });
});

describe('GitHub failing: a missing token is 409 CONFLICT, a rate limit 503 SERVICE_UNAVAILABLE', () => {
  test('GitHub answers 404 for the installation token → 409; 429 with Retry-After → 503; another user’s repository 404', async () => {
    organizationWithApp('Flaky-Org', 45, ['app']);
    const userId = catalog.newUser();
    await connect(userId, gitHubUser(['Flaky-Org']).tokens);
    const [repo] = await reposOf(userId);
    github.failNext({ method: 'POST', path: '/app/installations/45/access_tokens', status: 404 });
    const missing = await catalog.call('POST', `/internal/users/${userId}/repos/${repo?.id ?? ''}/access`, {});
    expect([missing.status, missing.body]).toEqual([
      409,
      { ok: false, error: { code: 'CONFLICT', message: 'No source-host access token for the repository (github answered 404)' } },
    ]);
    github.failNext({ method: 'POST', path: '/app/installations/45/access_tokens', status: 429, retryAfterSeconds: 30 });
    const limited = await catalog.call('GET', `/internal/users/${userId}/repos/${repo?.id ?? ''}`);
    expect(limited.status).toBe(503);
    expect(limited.body).toMatchObject({ ok: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    const foreign = await catalog.call('POST', `/internal/users/${catalog.newUser()}/repos/${repo?.id ?? ''}/access`, {});
    expect([foreign.status, foreign.body]).toEqual([404, NOT_FOUND]);
  });
});

describe('POST repos/:repoId/access hands out what reaching the repository takes: the catalog keeps the App’s key, a caller gets a short-lived token', () => {
  test('GitHub: the installation and a freshly minted installation token, which reaches the repository through a token-fed adapter', async () => {
    organizationWithApp('Review-Org', 34, ['app']);
    const userId = catalog.newUser();
    await connect(userId, gitHubUser(['Review-Org']).tokens);
    const [repo] = await reposOf(userId);
    const answer = await catalog.call<{ access: { provider: string; fullName: string; installation: unknown; token: string; expiresAt: string } }>(
      'POST',
      `/internal/users/${userId}/repos/${repo?.id ?? ''}/access`,
      {},
    );
    expect(answer.status).toBe(200);
    const { access } = answer.data;
    expect(access).toMatchObject({ provider: 'github', fullName: 'Review-Org/app', installation: { account: 'Review-Org', externalId: 34 } });
    expect(github.minted).toContainEqual({ installationId: 34, token: access.token });
    expect(Date.parse(access.expiresAt)).toBeGreaterThan(Date.now());
    const reviewer = new GitHubAppSourceHost({ apiUrl: github.url, installationToken: async () => ({ token: access.token, expiresAt: access.expiresAt }) });
    expect((await reviewer.listRepositories({ account: 'Review-Org', externalId: 34 })).map((listed) => listed.fullName)).toEqual(['Review-Org/app']);
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

describe('GET /internal/source-hosts/github/installations/:externalId/repos/:owner/:name names the repository a delivery is about and whom its work runs as', () => {
  test('the user who connected the installation while they reach the repository, else the first who reached it; 404 for another id, name, or nobody', async () => {
    organizationWithApp('Hook-Org', 52, ['app']);
    const [connector, teammate] = [catalog.newUser(), catalog.newUser()];
    const connectorGitHub = gitHubUser(['Hook-Org']);
    await connect(connector, connectorGitHub.tokens);
    await connect(teammate, gitHubUser(['Hook-Org']).tokens);
    const [repo] = await reposOf(connector);
    const found = await catalog.call<{ repo: unknown }>('GET', '/internal/source-hosts/github/installations/52/repos/Hook-Org/app');
    expect([found.status, found.data.repo]).toEqual([200, { userId: connector, repoId: repo?.id, installationId: repo?.installation_id }]);

    github.addUser({ id: Number(connectorGitHub.login.slice(5)), login: connectorGitHub.login, orgs: {} });
    await catalog.call('POST', `/internal/users/${connector}/github/recheck`, {});
    const after = await catalog.call<{ repo: { userId: string } }>('GET', '/internal/source-hosts/github/installations/52/repos/Hook-Org/app');
    expect(after.data.repo.userId).toBe(teammate);

    for (const path of [
      '/internal/source-hosts/github/installations/53/repos/Hook-Org/app',
      '/internal/source-hosts/github/installations/52/repos/Hook-Org/other',
    ]) {
      const missing = await catalog.call('GET', path);
      expect([missing.status, missing.body]).toEqual([404, NOT_FOUND]);
    }
  });
});
