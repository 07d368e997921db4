// Installing a GitHub App as the stand-in plays it (GitHub's documentation: "Installing your own
// GitHub App", "About the setup URL", GET /user/installations, GET /user/installations/{id}/repositories,
// and the installation, installation_repositories and repository webhooks).
import { createServer, type Server } from 'node:http';
import { generateKeyPairSync, sign } from 'node:crypto';
import { startGitHubStandIn, type GitHubStandIn } from './standIn.js';
import { signWebhookBody } from './webhooks.js';

const SECRET = 'webhook-secret';
const SETUP_URL = 'http://127.0.0.1:1/settings/github/setup';
const CALLBACK = 'http://127.0.0.1:1/settings/github/callback';
const APP = { clientId: 'Iv23.install', clientSecret: 'secret', callbackUrls: [CALLBACK], name: 'Agent Run Service' };

interface Received {
  event: string;
  deliveryId: string;
  signature: string;
  body: string;
  payload: Record<string, unknown>;
}

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
let github: GitHubStandIn;
let receiver: Server;
const received: Received[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({
        event: String(req.headers['x-github-event']),
        deliveryId: String(req.headers['x-github-delivery']),
        signature: String(req.headers['x-hub-signature-256']),
        body,
        payload: JSON.parse(body) as Record<string, unknown>,
      });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  github = await startGitHubStandIn({
    appId: '42',
    publicKey,
    oauthApp: APP,
    app: { slug: 'agent-run-service', setupUrl: SETUP_URL, webhook: { url: `http://127.0.0.1:${port}/webhooks/github`, secret: SECRET } },
    accounts: [
      {
        login: 'acme',
        type: 'Organization',
        repositories: [
          { name: 'widgets', defaultBranch: 'main' },
          { name: 'gadgets', defaultBranch: 'main' },
          { name: 'secrets', defaultBranch: 'main' },
        ],
      },
      { login: 'mona', type: 'User', repositories: [{ name: 'dotfiles', defaultBranch: 'main' }] },
    ],
    users: [
      { id: 11, login: 'mona', orgs: { acme: { role: 'admin', state: 'active' } } },
      { id: 12, login: 'hubot', orgs: { acme: { role: 'member', state: 'active' } } },
      { id: 13, login: 'outsider' },
    ],
  });
});
afterAll(async () => {
  await github.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

const form = (fields: [string, string][]): string => new URLSearchParams(fields).toString();

/** The `gh_user` cookie of the stand-in's sign-in form. */
async function browserOf(login: string): Promise<string> {
  const answer = await fetch(`${github.webUrl}/session`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form([
      ['login', login],
      ['password', 'x'],
      ['return_to', '/'],
    ]),
  });
  return (answer.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

/** A user access token of `login`, through the web flow (authorized once). */
async function userToken(login: string): Promise<string> {
  const cookie = await browserOf(login);
  const authorize = `/login/oauth/authorize?${new URLSearchParams({ client_id: APP.clientId, redirect_uri: CALLBACK, state: 's' })}`;
  await fetch(`${github.webUrl}/login/oauth/authorize/decision`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: form([
      ['authorize', '1'],
      ['return_to', authorize],
    ]),
  });
  const code = new URL(
    (await fetch(`${github.webUrl}${authorize}`, { redirect: 'manual', headers: { cookie } })).headers.get('location') ?? '',
  ).searchParams.get('code');
  const exchange = await fetch(`${github.webUrl}/login/oauth/access_token`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: APP.clientId, client_secret: APP.clientSecret, code }),
  });
  return String(((await exchange.json()) as { access_token: string }).access_token);
}

async function install(login: string, fields: [string, string][]): Promise<Response> {
  return fetch(`${github.webUrl}/apps/agent-run-service/installations`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: await browserOf(login) },
    body: form(fields),
  });
}

async function userGet(token: string, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const answer = await fetch(`${github.url}${path}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json' } });
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

/** POST /app/installations/{id}/access_tokens with an App JWT: the status GitHub answers. */
async function mintStatus(installationId: number): Promise<number> {
  const now = Math.floor(Date.now() / 1000);
  const head = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT' })).toString('base64url');
  const body = Buffer.from(JSON.stringify({ iss: '42', iat: now - 30, exp: now + 300 })).toString('base64url');
  const jwt = `${head}.${body}.${sign('RSA-SHA256', Buffer.from(`${head}.${body}`), privateKey).toString('base64url')}`;
  const answer = await fetch(`${github.url}/app/installations/${installationId}/access_tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${jwt}` },
  });
  await answer.arrayBuffer();
  return answer.status;
}

const namesOf = (repositories: unknown): string[] => (repositories as { full_name: string }[]).map((r) => r.full_name).sort();

describe('the install page: a signed-in GitHub user picks an account they may install on and its repositories', () => {
  test('signed out, the page is the sign-in form coming back to it; signed in, it offers the user and the organizations they administer', async () => {
    const path = '/apps/agent-run-service/installations/new?state=abc';
    const signedOut = await (await fetch(`${github.webUrl}${path}`)).text();
    expect(signedOut).toContain('action="/session"');
    expect(signedOut).toContain(`value="${path.replace('&', '&amp;')}"`);
    const page = await (await fetch(`${github.webUrl}${path}`, { headers: { cookie: await browserOf('mona') } })).text();
    expect(page).toContain('value="acme"');
    expect(page).toContain('value="mona"');
    expect(page).toContain('value="abc"');
    const member = await (await fetch(`${github.webUrl}${path}`, { headers: { cookie: await browserOf('hubot') } })).text();
    expect(member).not.toContain('value="acme"');
  });

  test('an organization the user only belongs to is refused 403, nothing installed', async () => {
    const answer = await install('hubot', [
      ['account', 'acme'],
      ['repository_selection', 'all'],
    ]);
    expect(answer.status).toBe(403);
    expect(github.installations()).toEqual([]);
  });
});

describe('installing sends the browser to the Setup URL with installation_id, setup_action and state, and delivers the installation webhook', () => {
  let installationId = 0;

  test('install on acme with two selected repositories: 302 to the Setup URL; `installation` created, signed, listing them', async () => {
    const answer = await install('mona', [
      ['account', 'acme'],
      ['repository_selection', 'selected'],
      ['repositories', 'widgets'],
      ['repositories', 'gadgets'],
      ['state', 'abc'],
    ]);
    expect(answer.status).toBe(302);
    const setup = new URL(answer.headers.get('location') ?? '');
    expect(`${setup.origin}${setup.pathname}`).toBe(SETUP_URL);
    expect(setup.searchParams.get('setup_action')).toBe('install');
    expect(setup.searchParams.get('state')).toBe('abc');
    installationId = Number(setup.searchParams.get('installation_id'));
    expect(github.installations()).toEqual([
      expect.objectContaining({ id: installationId, account: expect.objectContaining({ login: 'acme', type: 'Organization' }) }),
    ]);

    const created = received.find((r) => r.event === 'installation');
    expect(created?.signature).toBe(signWebhookBody(SECRET, created?.body ?? ''));
    expect(created?.payload).toMatchObject({
      action: 'created',
      installation: { id: installationId, account: { login: 'acme' }, repository_selection: 'selected' },
    });
    expect(namesOf(created?.payload.repositories)).toEqual(['acme/gadgets', 'acme/widgets']);
  });

  test('GET /user/installations lists it for an admin and a member of acme, not for an outsider; its repositories likewise (404 otherwise)', async () => {
    for (const login of ['mona', 'hubot']) {
      const token = await userToken(login);
      const listed = await userGet(token, '/user/installations');
      expect(listed).toMatchObject({
        status: 200,
        body: { total_count: 1, installations: [{ id: installationId, account: { login: 'acme' }, app_slug: 'agent-run-service' }] },
      });
      const repositories = await userGet(token, `/user/installations/${installationId}/repositories`);
      expect(repositories.status).toBe(200);
      expect(namesOf(repositories.body.repositories)).toEqual(['acme/gadgets', 'acme/widgets']);
    }
    const outsider = await userToken('outsider');
    expect(await userGet(outsider, '/user/installations')).toMatchObject({ status: 200, body: { total_count: 0, installations: [] } });
    expect((await userGet(outsider, `/user/installations/${installationId}/repositories`)).status).toBe(404);
    expect((await userGet('ghu_not-a-token', '/user/installations')).status).toBe(401);
  });

  test('a member removed from the organization no longer sees it', async () => {
    github.addUser({ id: 12, login: 'hubot', orgs: {} });
    const token = await userToken('hubot');
    expect(await userGet(token, '/user/installations')).toMatchObject({ body: { total_count: 0 } });
    github.addUser({ id: 12, login: 'hubot', orgs: { acme: { role: 'member', state: 'active' } } });
  });

  test('installing again on acme is an update: setup_action update; installation_repositories added and removed', async () => {
    received.length = 0;
    const answer = await install('mona', [
      ['account', 'acme'],
      ['repository_selection', 'selected'],
      ['repositories', 'widgets'],
      ['repositories', 'secrets'],
    ]);
    const setup = new URL(answer.headers.get('location') ?? '');
    expect([Number(setup.searchParams.get('installation_id')), setup.searchParams.get('setup_action')]).toEqual([installationId, 'update']);
    expect(received.map((r) => [r.event, r.payload.action, namesOf(r.payload.repositories_added), namesOf(r.payload.repositories_removed)])).toEqual([
      ['installation_repositories', 'added', ['acme/secrets'], []],
      ['installation_repositories', 'removed', [], ['acme/gadgets']],
    ]);
    expect(namesOf((await userGet(await userToken('mona'), `/user/installations/${installationId}/repositories`)).body.repositories)).toEqual([
      'acme/secrets',
      'acme/widgets',
    ]);
  });

  test('a repository renamed, transferred and its default branch changed: `repository` renamed, transferred and edited', async () => {
    received.length = 0;
    await github.renameRepository('acme/widgets', { name: 'sprockets' });
    await github.setDefaultBranch('acme/sprockets', 'trunk');
    await github.renameRepository('acme/sprockets', { owner: 'mona' });
    expect(received.map((r) => [r.event, r.payload.action, (r.payload.repository as { full_name: string }).full_name, r.payload.changes])).toEqual([
      ['repository', 'renamed', 'acme/sprockets', { repository: { name: { from: 'widgets' } } }],
      ['repository', 'edited', 'acme/sprockets', { default_branch: { from: 'main' } }],
      ['repository', 'transferred', 'mona/sprockets', { owner: { from: { organization: expect.objectContaining({ login: 'acme' }) } } }],
    ]);
    expect(received.every((r) => (r.payload.installation as { id: number }).id === installationId)).toBe(true);
    expect((received[1]?.payload.repository as { default_branch: string }).default_branch).toBe('trunk');
  });

  test('Redeliver sends the same delivery: the same X-GitHub-Delivery, body and signature', async () => {
    const first = received[0];
    const again = await github.redeliver(first?.deliveryId ?? '');
    expect([again.deliveryId, again.body, again.signature]).toEqual([first?.deliveryId, first?.body, first?.signature]);
    expect(received.filter((r) => r.deliveryId === first?.deliveryId)).toHaveLength(2);
  });

  test('suspended, the installation cannot mint tokens (403) and says so in its webhook; unsuspended, it can; uninstalled, it is gone', async () => {
    received.length = 0;
    expect(await mintStatus(installationId)).toBe(201);
    await github.suspendInstallation(installationId, true);
    expect(await mintStatus(installationId)).toBe(403);
    const token = await userToken('mona');
    expect((await userGet(token, '/user/installations')).body).toMatchObject({ installations: [{ id: installationId, suspended_at: expect.any(String) }] });
    await github.suspendInstallation(installationId, false);
    expect(await mintStatus(installationId)).toBe(201);
    await github.uninstall(installationId);
    expect(await mintStatus(installationId)).toBe(404);
    expect(received.map((r) => [r.event, r.payload.action])).toEqual([
      ['installation', 'suspend'],
      ['installation', 'unsuspend'],
      ['installation', 'deleted'],
    ]);
    expect(await userGet(token, '/user/installations')).toMatchObject({ body: { total_count: 0 } });
    expect((await userGet(token, `/user/installations/${installationId}/repositories`)).status).toBe(404);
    expect(github.installations()).toEqual([]);
  });
});
