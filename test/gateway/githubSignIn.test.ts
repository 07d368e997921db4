// Sign-in with GitHub (a GitHub App's web flow for user access tokens) against the GitHub stand-in,
// which plays GitHub's side from its documentation (deploy/local/github-stand-in, userAuth.ts): its
// sign-in form, "Authorize" asked the first time, the code exchange with PKCE, GET /user, /user/emails
// and /user/memberships/orgs/{org}. The gateway is configured with both methods (the chooser page),
// its OpenID provider unreachable. Driven over HTTP with a cookie jar, as a browser follows the pages.
import { generateKeyPairSync } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { startGitHubStandIn, type GitHubStandIn } from '@ars/github-stand-in';
import { startGatewayUnderTest, type GatewayUnderTest } from '@ars/gateway/testing';
import { freePort, sharedSystem } from '@ars/testenv';
import { CookieJar } from '../support/oauthBrowser.js';

const system = sharedSystem();
const CLIENT = { clientId: 'Iv23.standin-app', clientSecret: 'a-github-app-client-secret' };

let github: GitHubStandIn;
let gateway: GatewayUnderTest;
let mongo: MongoClient;

beforeAll(async () => {
  const gatewayPort = await freePort();
  const origin = `http://127.0.0.1:${gatewayPort}`;
  github = await startGitHubStandIn({
    appId: '4242',
    publicKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey,
    oauthApp: { ...CLIENT, name: 'Agent Run Service', callbackUrls: [`${origin}/auth/callback/github`] },
    users: [
      {
        id: 501,
        login: 'octo-alice',
        name: 'Alice Octo',
        email: null,
        emails: [
          { email: 'old@alice.example', primary: false, verified: true, visibility: null },
          { email: 'Alice@Acme.example', primary: true, verified: true, visibility: null },
        ],
        orgs: { acme: { role: 'member', state: 'active' } },
      },
      { id: 502, login: 'octo-invited', name: null, orgs: { acme: { role: 'member', state: 'pending' } } },
      { id: 503, login: 'octo-outsider', name: 'Out Sider', orgs: { elsewhere: { role: 'admin', state: 'active' } } },
      { id: 504, login: 'octo-bob', name: 'Bob Octo', email: 'bob@acme.example', orgs: { ACME: { role: 'admin', state: 'active' } } },
    ],
  });
  gateway = await startGatewayUnderTest({
    system: system(),
    env: {
      PORT: String(gatewayPort),
      GITHUB_CLIENT_ID: CLIENT.clientId,
      GITHUB_CLIENT_SECRET: CLIENT.clientSecret,
      GITHUB_ALLOWED_ORGS: 'acme',
      GITHUB_WEB_URL: github.webUrl,
      GITHUB_API_URL: github.url,
      // A second method, whose provider cannot be reached: the chooser shows both, and that one says so.
      OIDC_ISSUER: 'http://127.0.0.1:9',
      OIDC_CLIENT_ID: 'agent-run-service',
      OIDC_CLIENT_SECRET: 'unused-secret',
      OIDC_ALLOW_ANY: 'true',
    },
  });
  mongo = await MongoClient.connect(gateway.mongoUrl);
}, 120_000);

afterAll(async () => {
  await mongo?.close();
  await gateway?.stop();
  await github?.close();
}, 60_000);

const usersOf = (githubId: number) =>
  mongo
    .db(gateway.mongoDb)
    .collection('users')
    .find({ 'identity.method': 'github', 'identity.subject': String(githubId) })
    .toArray();

async function go(jar: CookieJar, url: string, form?: Record<string, string>): Promise<Response> {
  const response = await fetch(url, {
    method: form ? 'POST' : 'GET',
    redirect: 'manual',
    headers: { cookie: jar.header(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(url).origin } : {}) },
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
  });
  jar.take(response);
  return response;
}

/** From the gateway's GitHub sign-in to the callback URL GitHub sends the browser to, answering GitHub's pages as `login`. */
async function untilCallback(jar: CookieJar, login: string, options: { cancel?: boolean } = {}): Promise<{ callback: URL; pagesSeen: string[] }> {
  const start = await go(jar, `${gateway.baseUrl}/auth/sign-in/github`);
  expect(start.status).toBe(302);
  let next = new URL(start.headers.get('location') ?? '', gateway.baseUrl).href;
  expect(next.startsWith(`${github.webUrl}/login/oauth/authorize?`)).toBe(true);
  const pagesSeen: string[] = [];
  for (let step = 0; step < 10; step += 1) {
    if (next.startsWith(`${gateway.baseUrl}/auth/callback/github`)) return { callback: new URL(next), pagesSeen };
    const response = await go(jar, next);
    const location = response.headers.get('location');
    if (response.status === 302 && location) {
      next = new URL(location, next).href;
      continue;
    }
    const page = await response.text();
    const returnTo = /name="return_to" value="([^"]+)"/.exec(page)?.[1]?.replace(/&amp;/g, '&') ?? '';
    let answer: Response;
    if (page.includes('Sign in to GitHub')) {
      pagesSeen.push('sign-in');
      answer = await go(jar, `${github.webUrl}/session`, { login, password: 'any', return_to: returnTo });
    } else if (page.includes('Authorize Agent Run Service')) {
      pagesSeen.push('authorize');
      answer = await go(jar, `${github.webUrl}/login/oauth/authorize/decision`, { authorize: options.cancel ? '0' : '1', return_to: returnTo });
    } else throw new Error(`unexpected GitHub page (${response.status}): ${page.slice(0, 200)}`);
    next = new URL(answer.headers.get('location') ?? '', github.webUrl).href;
  }
  throw new Error('GitHub never sent the browser back');
}

async function callback(jar: CookieJar, url: URL): Promise<{ status: number; location: string | null; body: string; session: boolean }> {
  const response = await go(jar, url.href);
  return { status: response.status, location: response.headers.get('location'), body: await response.text(), session: jar.has('ars_session') };
}

describe('sign in with GitHub: an active member of an allowed organization, keyed by GitHub’s user id', () => {
  test('the first sign-in asks GitHub to authorize the App; the user is made with the primary verified email; a second sign-in is the same user, asked nothing', async () => {
    const jar = new CookieJar();
    const first = await untilCallback(jar, 'octo-alice');
    expect(first.pagesSeen).toEqual(['sign-in', 'authorize']);
    const done = await callback(jar, first.callback);
    expect([done.status, done.location, done.session]).toEqual([303, '/settings', true]);
    const [user] = await usersOf(501);
    expect(user).toMatchObject({
      origin: 'github',
      identity: { method: 'github', issuer: github.webUrl, subject: '501' },
      email: 'alice@acme.example',
      name: 'Alice Octo',
    });
    const session = await go(jar, `${gateway.baseUrl}/api/session`);
    expect(((await session.json()) as { data: { userId: string } }).data.userId).toBe(user?._id);

    const again = new CookieJar();
    again.set(`gh_user=octo-alice`);
    const second = await untilCallback(again, 'octo-alice');
    expect(second.pagesSeen).toEqual([]);
    expect((await callback(again, second.callback)).status).toBe(303);
    expect(await usersOf(501)).toHaveLength(1);
  });

  test('an admin of the organization (any letter case of its login) may sign in; the settings page shows who', async () => {
    const jar = new CookieJar();
    expect((await callback(jar, (await untilCallback(jar, 'octo-bob')).callback)).status).toBe(303);
    const settings = await (await go(jar, `${gateway.baseUrl}/settings`)).text();
    expect(settings).toContain('Bob Octo');
    expect(settings).toContain('bob@acme.example');
  });

  test.each([
    ['octo-invited', 502, /@octo-invited is not an active member/],
    ['octo-outsider', 503, /@octo-outsider is not an active member of an organization allowed to sign in here \(acme\)/],
  ])('%s (a pending invitation, another organization): 403, no user, no session', async (login, id, why) => {
    const jar = new CookieJar();
    const refused = await callback(jar, (await untilCallback(jar, login)).callback);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatch(why);
    expect(refused.session).toBe(false);
    expect(await usersOf(id)).toHaveLength(0);
  });
});

describe('the GitHub callback refuses what does not belong to this browser’s sign-in', () => {
  test('a wrong state: 400; a code used once already (bad_verification_code): 400; the user cancelling at GitHub (access_denied): 403', async () => {
    const jar = new CookieJar();
    const { callback: url } = await untilCallback(jar, 'octo-alice');
    const forged = new URL(url);
    forged.searchParams.set('state', 'not-this-browser-state-0123456789abcdefghijk');
    const wrongState = await callback(jar, forged);
    expect(wrongState.status).toBe(400);
    expect(wrongState.body).toMatch(/state does not match/);

    const fresh = new CookieJar();
    const used = await untilCallback(fresh, 'octo-alice');
    expect((await callback(fresh, used.callback)).status).toBe(303);
    const replay = new CookieJar();
    const other = await untilCallback(replay, 'octo-alice');
    other.callback.searchParams.set('code', used.callback.searchParams.get('code') ?? '');
    const replayed = await callback(replay, other.callback);
    expect(replayed.status).toBe(400);
    expect(replayed.body).toMatch(/bad_verification_code/);
    expect(replayed.session).toBe(false);

    github.forgetAuthorization('octo-bob');
    const cancelling = new CookieJar();
    const cancelled = await untilCallback(cancelling, 'octo-bob', { cancel: true });
    expect(cancelled.callback.searchParams.get('error')).toBe('access_denied');
    const denied = await callback(cancelling, cancelled.callback);
    expect(denied.status).toBe(403);
    expect(denied.body).toMatch(/access_denied/);
  });
});

describe('with two sign-in methods the user chooses', () => {
  test('GET /auth/sign-in is the chooser (each link keeps returnTo); the OpenID provider that cannot be reached is a 503 page, nothing set', async () => {
    const chooser = await fetch(`${gateway.baseUrl}/auth/sign-in?returnTo=%2Fcli%2Flogin%3Fx%3D1`, { redirect: 'manual' });
    expect(chooser.status).toBe(200);
    const page = await chooser.text();
    expect(page).toContain('href="/auth/sign-in/oidc?returnTo=%2Fcli%2Flogin%3Fx%3D1"');
    expect(page).toContain('href="/auth/sign-in/github?returnTo=%2Fcli%2Flogin%3Fx%3D1"');
    const unreachable = await fetch(`${gateway.baseUrl}/auth/sign-in/oidc`, { redirect: 'manual' });
    expect(unreachable.status).toBe(503);
    expect(await unreachable.text()).toMatch(/could not be reached/);
    expect(unreachable.headers.getSetCookie()).toEqual([]);
  });
});
