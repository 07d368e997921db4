// GitHub's web flow for a GitHub App's user tokens, as the stand-in plays it (GitHub's documentation,
// "Generating a user access token for a GitHub App"): the answers a sign-in reads.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { startGitHubStandIn, type GitHubStandIn } from './standIn.js';

const CALLBACK = 'http://127.0.0.1:1/auth/callback/github';
const APP = { clientId: 'Iv23.test', clientSecret: 'secret-of-the-app', callbackUrls: [CALLBACK], name: 'Test App' };
let github: GitHubStandIn;

beforeAll(async () => {
  github = await startGitHubStandIn({
    appId: '1',
    publicKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey,
    installations: { 7: [{ owner: 'acme', name: 'widgets', defaultBranch: 'main' }] },
    oauthApp: APP,
    users: [{ id: 11, login: 'mona', name: 'Mona', email: 'mona@acme.example', orgs: { acme: { role: 'member', state: 'active' } } }],
  });
});
afterAll(() => github.close());

const verifier = randomBytes(32).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');

/** Signs `mona` in to the stand-in and authorizes the App; answers the code GitHub redirects with. */
async function codeFor(params: Record<string, string> = {}): Promise<{ code: string; location: URL }> {
  const query = new URLSearchParams({
    client_id: APP.clientId,
    redirect_uri: CALLBACK,
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...params,
  });
  const authorize = `${github.webUrl}/login/oauth/authorize?${query}`;
  const signIn = await fetch(`${github.webUrl}/session`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ login: 'mona', password: 'x', return_to: authorize.slice(github.webUrl.length) }).toString(),
  });
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  await fetch(`${github.webUrl}/login/oauth/authorize/decision`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ authorize: '1', return_to: authorize.slice(github.webUrl.length) }).toString(),
  });
  const answer = await fetch(authorize, { redirect: 'manual', headers: { cookie } });
  expect(answer.status).toBe(302);
  const location = new URL(answer.headers.get('location') ?? '');
  return { code: location.searchParams.get('code') ?? '', location };
}

async function exchange(body: Record<string, string>): Promise<{ status: number; json: Record<string, unknown> }> {
  const answer = await fetch(`${github.webUrl}/login/oauth/access_token`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: APP.clientId, client_secret: APP.clientSecret, redirect_uri: CALLBACK, ...body }),
  });
  return { status: answer.status, json: (await answer.json()) as Record<string, unknown> };
}

describe('the web flow: authorize, then the code exchanged once for a user access token', () => {
  test('the redirect carries the code and the state; the exchange answers ghu_/ghr_ tokens with their lifetimes; the code works once', async () => {
    const { code, location } = await codeFor();
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    expect(location.searchParams.get('state')).toBe('st');
    const tokens = await exchange({ code, code_verifier: verifier });
    expect(tokens).toEqual({
      status: 200,
      json: {
        access_token: expect.stringMatching(/^ghu_/),
        expires_in: 28800,
        refresh_token: expect.stringMatching(/^ghr_/),
        refresh_token_expires_in: 15811200,
        scope: '',
        token_type: 'bearer',
      },
    });
    expect(await exchange({ code, code_verifier: verifier })).toMatchObject({ status: 200, json: { error: 'bad_verification_code' } });
  });

  test('errors are HTTP 200 with `error`: a wrong verifier, wrong client credentials, another redirect_uri', async () => {
    expect(await exchange({ code: (await codeFor()).code, code_verifier: 'x'.repeat(43) })).toMatchObject({
      status: 200,
      json: { error: 'bad_verification_code' },
    });
    expect(await exchange({ code: (await codeFor()).code, code_verifier: verifier, client_secret: 'wrong' })).toMatchObject({
      json: { error: 'incorrect_client_credentials' },
    });
    expect(await exchange({ code: (await codeFor()).code, code_verifier: verifier, redirect_uri: 'http://127.0.0.1:1/elsewhere' })).toMatchObject({
      json: { error: 'redirect_uri_mismatch' },
    });
  });

  test('a redirect_uri that is not a registered callback URL goes back to the registered one with redirect_uri_mismatch', async () => {
    const answer = await fetch(
      `${github.webUrl}/login/oauth/authorize?client_id=${APP.clientId}&redirect_uri=${encodeURIComponent('https://evil.example/cb')}&state=s`,
      {
        redirect: 'manual',
      },
    );
    const location = new URL(answer.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    expect(location.searchParams.get('error')).toBe('redirect_uri_mismatch');
  });

  test('a refresh rotates both tokens: the old access token stops working', async () => {
    const first = await exchange({ code: (await codeFor()).code, code_verifier: verifier });
    const refreshed = await exchange({ grant_type: 'refresh_token', refresh_token: String(first.json.refresh_token) });
    expect(refreshed.json.access_token).toMatch(/^ghu_/);
    expect((await fetch(`${github.url}/user`, { headers: { authorization: `Bearer ${String(first.json.access_token)}` } })).status).toBe(401);
    expect((await fetch(`${github.url}/user`, { headers: { authorization: `Bearer ${String(refreshed.json.access_token)}` } })).status).toBe(200);
    expect(await exchange({ grant_type: 'refresh_token', refresh_token: String(first.json.refresh_token) })).toMatchObject({
      json: { error: 'bad_refresh_token' },
    });
  });
});

describe('the user routes read with a user access token', () => {
  test('GET /user, /user/emails, /user/memberships/orgs/{org} (404 when not a member); an installation token is 403 there', async () => {
    const { json } = await exchange({ code: (await codeFor()).code, code_verifier: verifier });
    const headers = { authorization: `Bearer ${String(json.access_token)}` };
    expect(await (await fetch(`${github.url}/user`, { headers })).json()).toMatchObject({
      id: 11,
      login: 'mona',
      name: 'Mona',
      email: 'mona@acme.example',
      type: 'User',
    });
    expect(await (await fetch(`${github.url}/user/emails`, { headers })).json()).toEqual([
      { email: 'mona@acme.example', primary: true, verified: true, visibility: 'public' },
    ]);
    expect(await (await fetch(`${github.url}/user/memberships/orgs/ACME`, { headers })).json()).toMatchObject({
      state: 'active',
      role: 'member',
      organization: { login: 'acme' },
    });
    expect((await fetch(`${github.url}/user/memberships/orgs/other`, { headers })).status).toBe(404);
    expect((await fetch(`${github.url}/user`)).status).toBe(401);
    expect((await fetch(`${github.url}/user`, { headers: { authorization: 'token ghs_installation' } })).status).toBe(403);
  });
});
