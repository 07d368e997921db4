// `ars login` on the whole stack: the CLI as a child process (`--no-browser` prints the URL), the
// gateway's consent page in headless Chromium signed in with a development account's session,
// Allow/Deny clicked there; the one-time code and PKCE of POST /api/cli/login/token; `ars logout`
// and the PAT self-revocation route (gateway README, "CLI login").
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Browser } from 'puppeteer-core';
import { bearer, call, createAccount, createToken, dataOf, errorOf, type Account } from '../support/accounts.js';
import { browserProfile, cliConfigDir, expectExit, launchChromium, runCli, startLogin } from '../support/cli.js';
import { sharedSystem } from '@ars/testenv';

const system = sharedSystem();
const base = () => system().baseUrl;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  revokedAt: string | null;
}

async function apiKeys(account: Account): Promise<ApiKey[]> {
  return dataOf(await call<{ apiKeys: ApiKey[] }>(`${base()}/api/settings/api-keys`, { headers: { cookie: account.sessionCookie } })).apiKeys;
}

/** The consent page opened in Chromium as the signed-in user (or signed out), and the button clicked: where the browser ends up. */
async function answerInBrowser(
  url: URL,
  account: Account | undefined,
  button?: 'allow' | 'deny',
): Promise<{ status: number | undefined; text: string; html: string; finalUrl: string }> {
  const context = await browserProfile(browser, base(), account?.sessionCookie);
  try {
    const page = await context.newPage();
    const shown = await page.goto(url.href, { waitUntil: 'load' });
    if (!button) return { status: shown?.status(), text: await page.$eval('body', (b) => b.innerText), html: await page.content(), finalUrl: page.url() };
    const [answer] = await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(`button[value="${button}"]`)]);
    return { status: answer?.status(), text: await page.$eval('body', (b) => b.innerText), html: await page.content(), finalUrl: page.url() };
  } finally {
    await context.close();
  }
}

const credentialsFile = (configDir: string) => join(configDir, 'credentials.json');

describe('ars login: Allow in the browser stores a working token, mode 0600, in a 0700 directory', () => {
  test('the CLI exits 0, the file holds a token with the asked scopes, and ars repos --json works with it', async () => {
    const account = await createAccount(base());
    const configDir = cliConfigDir();
    const { cli, url } = await startLogin(base(), configDir, ['--client-name', 'laptop <b>test</b>']);
    expect(url.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');

    const consent = await answerInBrowser(url, account);
    expect(consent.status).toBe(200);
    expect(consent.text).toContain('laptop <b>test</b>');
    expect(consent.html).not.toContain('<b>test</b>');
    expect(consent.text).toMatch(/read: read your repositories/);
    expect(consent.text).toMatch(/write: start and cancel agent runs/);

    const allowed = await answerInBrowser(url, account, 'allow');
    expect(allowed.finalUrl).toMatch(new RegExp(`^${url.searchParams.get('redirect_uri')}\\?code=`));
    expect(allowed.text).toContain('Signed in');
    const result = await cli.exited;
    expectExit(result, 0);

    const file = credentialsFile(configDir);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
    const repos = await runCli(['repos', '--json'], { ARS_CONFIG_DIR: configDir });
    expectExit(repos, 0);
    expect((JSON.parse(repos.stdout) as { repos: { id: string }[] }).repos.map((r) => r.id).sort()).toEqual(account.repos.map((r) => r.id).sort());

    const [key] = await apiKeys(account);
    expect(key).toMatchObject({ name: 'ars CLI (laptop <b>test</b>)', scopes: ['read', 'write'], revokedAt: null });
  }, 120_000);

  test('--scopes read asks for read only, and the token gets read only', async () => {
    const account = await createAccount(base());
    const configDir = cliConfigDir();
    const { cli, url } = await startLogin(base(), configDir, ['--scopes', 'read', '--json']);
    await answerInBrowser(url, account, 'allow');
    const result = await cli.exited;
    expectExit(result, 0);
    expect(JSON.parse(result.stdout)).toMatchObject({ scopes: ['read'] });
    const { token } = JSON.parse(readFileSync(credentialsFile(configDir), 'utf8')) as { token: string };
    expect(result.stdout + result.stderr).not.toContain(token);
    expect((await apiKeys(account)).map((k) => k.scopes)).toEqual([['read']]);
  }, 120_000);
});

describe('ars login: Deny leaves nothing behind', () => {
  test('the CLI exits non-zero with ACCESS_DENIED, no credentials file, no PAT minted', async () => {
    const account = await createAccount(base());
    const configDir = cliConfigDir();
    const { cli, url } = await startLogin(base(), configDir);
    const denied = await answerInBrowser(url, account, 'deny');
    expect(denied.finalUrl).toContain('error=access_denied');
    expect(denied.text).toContain('Access denied');
    const result = await cli.exited;
    expectExit(result, 2);
    expect(result.stderr).toMatch(/^error ACCESS_DENIED \(HTTP 0\): /m);
    expect(existsSync(credentialsFile(configDir))).toBe(false);
    expect(await apiKeys(account)).toEqual([]);
  }, 120_000);
});

/** The consent form posted as the signed-in browser would (same origin): the 303's Location. */
async function decide(account: Account, fields: Record<string, string>, decision: 'allow' | 'deny' = 'allow', origin = base()): Promise<Response> {
  return fetch(`${base()}/cli/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: account.sessionCookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, decision }).toString(),
  });
}

describe('ars login: an answer with another state is refused and nothing is stored', () => {
  test('a real code delivered with a wrong state: the listener refuses it, the CLI exits non-zero, no file, no PAT', async () => {
    const account = await createAccount(base());
    const configDir = cliConfigDir();
    const { cli, url } = await startLogin(base(), configDir);
    const fields = Object.fromEntries(url.searchParams);
    const redirected = await decide(account, { ...fields, state: 'not-the-state-of-this-login' });
    expect(redirected.status).toBe(303);
    const callback = new URL(redirected.headers.get('location') ?? '');
    expect(callback.searchParams.get('code')).toBeTruthy();
    const refused = await fetch(callback);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('state mismatch');
    const result = await cli.exited;
    expectExit(result, 2);
    expect(result.stderr).toMatch(/^error STATE_MISMATCH \(HTTP 0\): /m);
    expect(existsSync(credentialsFile(configDir))).toBe(false);
    expect(await apiKeys(account)).toEqual([]);
  }, 120_000);
});

/** What the CLI does, by hand: a PKCE pair and the consent request's fields. */
function loginRequest(port = 45_678) {
  const verifier = randomBytes(32).toString('base64url');
  return {
    verifier,
    fields: {
      redirect_uri: `http://127.0.0.1:${port}/callback`,
      state: randomBytes(16).toString('base64url'),
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      client_name: 'exchange test',
      scopes: 'read,write',
    },
  };
}

async function codeFor(account: Account, fields: Record<string, string>): Promise<string> {
  const location = new URL((await decide(account, fields)).headers.get('location') ?? '');
  return location.searchParams.get('code') ?? '';
}

function exchange(body: Record<string, string>) {
  return call<{ token: string; id: string; prefix: string; scopes: string[]; expiresAt: string }>(`${base()}/api/cli/login/token`, {
    method: 'POST',
    json: body,
  });
}

describe('POST /api/cli/login/token: a code is single-use and bound to its PKCE challenge and redirect URI', () => {
  test('the first exchange mints the PAT (90 days, the granted scopes); the code replayed a second time is 400', async () => {
    const account = await createAccount(base());
    const { verifier, fields } = loginRequest();
    const code = await codeFor(account, fields);
    const body = { code, code_verifier: verifier, redirect_uri: fields.redirect_uri };
    const first = dataOf(await exchange(body));
    expect(first.token).toMatch(/^tok_[0-9A-Za-z]{32}$/);
    expect(first.scopes).toEqual(['read', 'write']);
    expect(Date.parse(first.expiresAt) - Date.now()).toBeGreaterThan(89 * 86_400_000);
    expect((await call(`${base()}/api/v1/svc/repos`, { headers: bearer(first.token) })).status).toBe(200);
    const replay = await exchange(body);
    expect(replay.status).toBe(400);
    expect(errorOf(replay)).toEqual({ code: 'BAD_REQUEST', message: 'Invalid, expired or already used login code' });
    expect(await apiKeys(account)).toHaveLength(1);
  }, 60_000);

  test('a wrong code_verifier is 400, and spends the code: the right one afterwards is 400 too', async () => {
    const account = await createAccount(base());
    const { verifier, fields } = loginRequest();
    const code = await codeFor(account, fields);
    const wrong = await exchange({ code, code_verifier: randomBytes(32).toString('base64url'), redirect_uri: fields.redirect_uri });
    expect(wrong.status).toBe(400);
    expect(errorOf(wrong).message).toBe('code_verifier does not match the code_challenge');
    expect((await exchange({ code, code_verifier: verifier, redirect_uri: fields.redirect_uri })).status).toBe(400);
    expect(await apiKeys(account)).toEqual([]);
  }, 60_000);

  test('another redirect_uri than the login request’s is 400; an unknown code is 400; a missing field is 400', async () => {
    const account = await createAccount(base());
    const { verifier, fields } = loginRequest();
    const code = await codeFor(account, fields);
    const other = await exchange({ code, code_verifier: verifier, redirect_uri: 'http://127.0.0.1:1/callback' });
    expect(other.status).toBe(400);
    expect(errorOf(other).message).toBe('redirect_uri does not match the login request');
    expect((await exchange({ code: 'no-such-code', code_verifier: verifier, redirect_uri: fields.redirect_uri })).status).toBe(400);
    expect(errorOf(await exchange({ code: 'x', code_verifier: verifier } as Record<string, string>)).code).toBe('BAD_REQUEST');
    expect(await apiKeys(account)).toEqual([]);
  }, 60_000);
});

describe('the consent page checks every parameter and never redirects to an unvalidated URI', () => {
  test.each([
    ['an https redirect_uri', { redirect_uri: 'https://127.0.0.1:4000/callback' }, 'redirect_uri must be'],
    ['another host', { redirect_uri: 'http://evil.example:4000/callback' }, 'redirect_uri must be'],
    ['another path', { redirect_uri: 'http://127.0.0.1:4000/steal' }, 'redirect_uri must be'],
    ['no port', { redirect_uri: 'http://127.0.0.1/callback' }, 'redirect_uri must be'],
    ['plain PKCE', { code_challenge_method: 'plain' }, 'code_challenge_method must be S256'],
    ['a short challenge', { code_challenge: 'abc' }, 'code_challenge must be'],
    ['no state', { state: '' }, 'state must be'],
    ['an unknown scope', { scopes: 'read,admin' }, 'scopes must be'],
  ])(
    '%s: an error page (400), no Location, on GET and on POST',
    async (_name, change, problem) => {
      const account = await createAccount(base());
      const fields = { ...loginRequest().fields, ...change };
      const shown = await fetch(`${base()}/cli/login?${new URLSearchParams(fields).toString()}`, {
        redirect: 'manual',
        headers: { cookie: account.sessionCookie },
      });
      expect(shown.status).toBe(400);
      expect(shown.headers.get('location')).toBeNull();
      expect(await shown.text()).toContain(problem);
      const posted = await decide(account, fields);
      expect(posted.status).toBe(400);
      expect(posted.headers.get('location')).toBeNull();
    },
    60_000,
  );

  test('localhost is a valid listener too; the client name is capped', async () => {
    const account = await createAccount(base());
    const fields = { ...loginRequest().fields, redirect_uri: 'http://localhost:4000/callback', client_name: 'n'.repeat(500) };
    const shown = await fetch(`${base()}/cli/login?${new URLSearchParams(fields).toString()}`, { headers: { cookie: account.sessionCookie } });
    expect(shown.status).toBe(200);
    const html = await shown.text();
    expect(html).toContain(`${'n'.repeat(59)}…`);
    expect(html).not.toContain('n'.repeat(61));
  }, 60_000);

  test('a cross-site POST of the form is 403 and redirects nowhere', async () => {
    const account = await createAccount(base());
    const posted = await decide(account, loginRequest().fields, 'allow', 'http://evil.example');
    expect(posted.status).toBe(403);
    expect(posted.headers.get('location')).toBeNull();
  }, 60_000);
});

describe('without a browser session the page says where to sign in', () => {
  test('Chromium without the session cookie: 401, “Sign in to continue”, the development account command and its sign-in link', async () => {
    const { fields } = loginRequest();
    const page = await answerInBrowser(new URL(`${base()}/cli/login?${new URLSearchParams(fields).toString()}`), undefined);
    expect(page.status).toBe(401);
    expect(page.text).toContain('Sign in to continue');
    expect(page.text).toContain('npm run admin -- dev-account');
    expect(page.text).toContain('signInUrl');
    expect(page.html).not.toContain('<form');
  }, 60_000);
});

describe('a development account’s signInUrl signs a browser in, once: then ars login is answered in that browser', () => {
  test('signed out: the sign-in page names signInUrl; the link signs the browser in; reloaded, the consent page is shown and Allow completes the login', async () => {
    const account = await createAccount(base());
    const configDir = cliConfigDir();
    const { cli, url } = await startLogin(base(), configDir);
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      const signedOut = await page.goto(url.href, { waitUntil: 'load' });
      expect(signedOut?.status()).toBe(401);
      expect(await page.$eval('body', (b) => b.innerText)).toContain('signInUrl');

      const signedIn = await page.goto(account.signInUrl, { waitUntil: 'load' });
      expect(signedIn?.status()).toBe(200);
      expect(signedIn?.headers()['referrer-policy']).toBe('no-referrer');
      expect(await page.$eval('body', (b) => b.innerText)).toContain(`signed in as the development account ${account.userId}`);

      const consent = await page.goto(url.href, { waitUntil: 'load' });
      expect(consent?.status()).toBe(200);
      const [answer] = await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[value="allow"]')]);
      expect(answer?.url()).toMatch(new RegExp(`^${url.searchParams.get('redirect_uri')}\\?code=`));
    } finally {
      await context.close();
    }
    expectExit(await cli.exited, 0);
    const repos = await runCli(['repos', '--json'], { ARS_CONFIG_DIR: configDir });
    expectExit(repos, 0);
    expect((JSON.parse(repos.stdout) as { repos: { id: string }[] }).repos.map((r) => r.id).sort()).toEqual(account.repos.map((r) => r.id).sort());
  }, 90_000);

  test('the link works once: a second browser opening it gets 400 and no session; a made-up code is 400 too', async () => {
    const account = await createAccount(base());
    const first = await browser.createBrowserContext();
    const second = await browser.createBrowserContext();
    try {
      expect((await (await first.newPage()).goto(account.signInUrl, { waitUntil: 'load' }))?.status()).toBe(200);
      const page = await second.newPage();
      const reused = await page.goto(account.signInUrl, { waitUntil: 'load' });
      expect(reused?.status()).toBe(400);
      expect(await page.$eval('body', (b) => b.innerText)).toContain('invalid, expired or already used');
      expect(await second.cookies()).toEqual([]);
      const madeUp = await page.goto(`${base()}/dev/sign-in?code=${'A'.repeat(43)}`, { waitUntil: 'load' });
      expect(madeUp?.status()).toBe(400);
      expect(await second.cookies()).toEqual([]);
      const session = await call<{ userId: string }>(`${base()}/api/session`, {
        headers: { cookie: (await first.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') },
      });
      expect(dataOf(session)).toMatchObject({ userId: account.userId });
    } finally {
      await first.close();
      await second.close();
    }
  }, 60_000);
});

describe('ars logout revokes the token and forgets it; a PAT revokes only itself', () => {
  test('after ars logout the token gets 401 and the credentials file is gone', async () => {
    const account = await createAccount(base());
    const configDir = cliConfigDir();
    const { cli, url } = await startLogin(base(), configDir);
    await answerInBrowser(url, account, 'allow');
    expectExit(await cli.exited, 0);
    const { token } = JSON.parse(readFileSync(credentialsFile(configDir), 'utf8')) as { token: string };
    const out = await runCli(['logout'], { ARS_CONFIG_DIR: configDir });
    expectExit(out, 0);
    expect(existsSync(credentialsFile(configDir))).toBe(false);
    const after = await call(`${base()}/api/v1/svc/repos`, { headers: bearer(token) });
    expect(after.status).toBe(401);
    expect(errorOf(after).message).toBe('Access token has been revoked');
    const repos = await runCli(['repos'], { ARS_CONFIG_DIR: configDir });
    expectExit(repos, 2);
    expect(repos.stderr).toMatch(/^error NOT_LOGGED_IN/m);
  }, 120_000);

  test('DELETE /api/settings/api-keys/current revokes exactly the presenting PAT, never another', async () => {
    const account = await createAccount(base());
    const first = await createToken(base(), account, { name: 'first' });
    const second = await createToken(base(), account, { name: 'second', scopes: ['read'] });
    const revoked = await call(`${base()}/api/settings/api-keys/current`, { method: 'DELETE', headers: bearer(second.token) });
    expect(revoked.status).toBe(200);
    expect(dataOf(revoked)).toEqual({ revoked: true, id: second.id });
    expect((await call(`${base()}/api/v1/svc/repos`, { headers: bearer(second.token) })).status).toBe(401);
    expect((await call(`${base()}/api/v1/svc/repos`, { headers: bearer(first.token) })).status).toBe(200);
    // The id route stays session-only: a PAT naming another PAT is refused.
    expect((await call(`${base()}/api/settings/api-keys/${first.id}`, { method: 'DELETE', headers: bearer(second.token) })).status).toBe(403);
    expect((await call(`${base()}/api/settings/api-keys/${first.id}`, { method: 'DELETE', headers: bearer(first.token) })).status).toBe(403);
    expect((await call(`${base()}/api/v1/svc/repos`, { headers: bearer(first.token) })).status).toBe(200);
  }, 60_000);

  test('no token, a malformed or unknown one, a revoked one, or a session cookie alone: 401', async () => {
    const account = await createAccount(base());
    const token = await createToken(base(), account);
    const current = `${base()}/api/settings/api-keys/current`;
    expect((await call(current, { method: 'DELETE' })).status).toBe(401);
    expect((await call(current, { method: 'DELETE', headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    expect((await call(current, { method: 'DELETE', headers: bearer(`tok_${'A'.repeat(32)}`) })).status).toBe(401);
    expect((await call(current, { method: 'DELETE', headers: { cookie: account.sessionCookie } })).status).toBe(401);
    expect((await call(`${base()}/api/v1/svc/repos`, { headers: bearer(token.token) })).status).toBe(200);
    expect((await call(current, { method: 'DELETE', headers: bearer(token.token) })).status).toBe(200);
    const again = await call(current, { method: 'DELETE', headers: bearer(token.token) });
    expect(again.status).toBe(401);
    expect(errorOf(again).message).toBe('Access token has been revoked');
  }, 60_000);
});
