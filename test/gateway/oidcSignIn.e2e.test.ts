// Sign-in through OpenID Connect against a real OpenID provider (the maintained `oidc-provider`,
// configured in the test with its own login and consent pages), with a gateway configured for it
// (OIDC_*, in-process, composing from the shared system's catalog). The whole path in headless
// Chromium: sign in → settings → create a PAT → the PAT answers GET /repos → revoke it → 401 →
// sign out at the provider too. Every refused callback is driven over plain HTTP (a cookie jar that
// follows the provider's pages): a wrong state, a replayed code, a wrong nonce, an ID token for
// another audience or expired, an email outside the allowed domains or unverified, the user
// cancelling: each 400 or 403 with a page saying why, no session, no user made.
import { MongoClient } from 'mongodb';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { startGatewayUnderTest, startIdentityProvider, type GatewayUnderTest, type IdentityProvider } from '@ars/gateway/testing';
import { freePort, sharedSystem } from '@ars/testenv';
import { launchChromium } from '../support/cli.js';
import { CookieJar } from '../support/oauthBrowser.js';

const system = sharedSystem();
const CLIENT = { id: 'agent-run-service', secret: 'a-test-client-secret-0123456789' };
const ACCOUNTS = {
  alice: { email: 'alice@example.com', email_verified: true, name: 'Alice Example' },
  bob: { email: 'bob@example.com', email_verified: true, name: 'Bob Example' },
  carol: { email: 'carol@example.com', email_verified: true, name: 'Carol Example' },
  dave: { email: 'dave@example.com', email_verified: true, name: 'Dave Example' },
  erin: { email: 'erin@example.com', email_verified: true, name: 'Erin Example' },
  frank: { email: 'frank@example.com', email_verified: true, name: 'Frank Example' },
  grace: { email: 'grace@example.com', email_verified: true, name: 'Grace Example' },
  mallory: { email: 'mallory@elsewhere.example', email_verified: true, name: 'Mallory' },
  unverified: { email: 'unverified@example.com', email_verified: false, name: 'Not Verified' },
};

let gateway: GatewayUnderTest;
let provider: IdentityProvider;
let mongo: MongoClient;
let browser: Browser;

beforeAll(async () => {
  const idpPort = await freePort();
  const gatewayPort = await freePort();
  const origin = `http://127.0.0.1:${gatewayPort}`;
  // The gateway discovers the provider at the first sign-in, so it may start first and name the provider's port.
  provider = await startIdentityProvider({
    port: idpPort,
    client: { ...CLIENT, redirectUri: `${origin}/auth/callback`, postLogoutRedirectUri: `${origin}/auth/signed-out` },
    accounts: ACCOUNTS,
  });
  gateway = await startGatewayUnderTest({
    system: system(),
    env: {
      PORT: String(gatewayPort),
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: CLIENT.id,
      OIDC_CLIENT_SECRET: CLIENT.secret,
      OIDC_ALLOWED_EMAIL_DOMAINS: 'example.com',
    },
  });
  mongo = await MongoClient.connect(gateway.mongoUrl);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await mongo?.close();
  await gateway?.stop();
  await provider?.stop();
}, 60_000);

/** The users the gateway keeps for an identity of the provider. */
const usersOf = (subject: string): Promise<number> =>
  mongo.db(gateway.mongoDb).collection('users').countDocuments({ 'identity.issuer': provider.issuer, 'identity.subject': subject });

// ---- a browser without a browser: a cookie jar that follows redirects and answers the provider's pages ----

async function go(jar: CookieJar, url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    redirect: 'manual',
    headers: {
      cookie: jar.header(),
      ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(url).origin } : {}),
    },
    ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
  });
  jar.take(response);
  return response;
}

interface SignInOptions {
  /** Changes the provider's authorization URL on its way there (as an attacker in the middle could). */
  rewriteAuthorization?: (url: URL) => void;
  /** Cancels at the provider's login page instead of signing in. */
  cancel?: boolean;
  returnTo?: string;
}

/** Starts a sign-in at the gateway and plays the provider's pages as `login`: the callback URL the provider sends the browser to. */
async function untilCallback(jar: CookieJar, login: string, options: SignInOptions = {}): Promise<URL> {
  const start = await go(jar, `${gateway.baseUrl}/auth/sign-in${options.returnTo ? `?returnTo=${encodeURIComponent(options.returnTo)}` : ''}`);
  expect(start.status).toBe(302);
  const authorization = new URL(start.headers.get('location') ?? '');
  expect(authorization.origin).toBe(provider.issuer);
  options.rewriteAuthorization?.(authorization);
  let next = authorization.href;
  for (let step = 0; step < 12; step += 1) {
    if (next.startsWith(`${gateway.baseUrl}/auth/callback`)) return new URL(next);
    const response = await go(jar, next);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      next = new URL(location, next).href;
      continue;
    }
    const page = await response.text();
    const action = new URL(/<form[^>]*action="([^"]+)"/.exec(page)?.[1] ?? '', next).href;
    if (page.includes('name="prompt" value="login"')) {
      if (options.cancel) {
        next = `${action.replace(/\/$/, '')}/abort`;
        continue;
      }
      const posted = await go(jar, action, { method: 'POST', form: { prompt: 'login', login, password: 'any' } });
      next = new URL(posted.headers.get('location') ?? '', action).href;
    } else if (page.includes('name="prompt" value="consent"')) {
      const posted = await go(jar, action, { method: 'POST', form: { prompt: 'consent' } });
      next = new URL(posted.headers.get('location') ?? '', action).href;
    } else {
      throw new Error(`unexpected provider page (${response.status}) at ${next}: ${page.slice(0, 300)}`);
    }
  }
  throw new Error('the provider never sent the browser back to the gateway');
}

async function callback(jar: CookieJar, url: URL): Promise<{ status: number; location: string | null; body: string; session: boolean }> {
  const response = await go(jar, url.href);
  return { status: response.status, location: response.headers.get('location'), body: await response.text(), session: jar.has('ars_session') };
}

/** A refused callback: 400 or 403, a page saying why, no session cookie, no user of that identity. */
async function expectRefused(answer: { status: number; body: string; session: boolean }, status: 400 | 403, why: RegExp, subject: string): Promise<void> {
  expect(answer.status).toBe(status);
  expect(answer.body).toMatch(/<h1>Sign-in refused<\/h1>/);
  expect(answer.body).toMatch(why);
  expect(answer.session).toBe(false);
  expect(await usersOf(subject)).toBe(0);
}

// ---- the whole path, in Chromium ----

async function textOf(page: Page, selector: string): Promise<string> {
  return page.$eval(selector, (element) => (element as unknown as { innerText: string }).innerText);
}

describe('sign in through OpenID Connect, in a browser: settings, a PAT that works until it is revoked, sign-out at the provider too', () => {
  let context: BrowserContext;
  afterAll(() => context?.close());

  test('sign in → /settings shows who → create a PAT (shown once) → GET /repos 200 → revoke → 401 → sign out: the old cookie is dead', async () => {
    context = await browser.createBrowserContext();
    const page = await context.newPage();
    // A signed-out browser asking for the settings page is sent to sign in, and back.
    await page.goto(`${gateway.baseUrl}/settings`, { waitUntil: 'domcontentloaded' });
    expect(page.url().startsWith(`${provider.issuer}/interaction/`)).toBe(true);
    await page.type('input[name="login"]', 'alice');
    await page.type('input[name="password"]', 'any password');
    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('button[type="submit"]')]);
    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('button[type="submit"]')]);
    expect(page.url()).toBe(`${gateway.baseUrl}/settings`);
    expect(await textOf(page, '#who')).toContain('alice@example.com');
    expect(await textOf(page, '#who')).toContain('Alice Example');
    expect(await usersOf('alice')).toBe(1);
    const sessionCookie = (await page.cookies(gateway.baseUrl)).find((cookie) => cookie.name === 'ars_session');
    expect(sessionCookie?.httpOnly).toBe(true);
    expect(sessionCookie?.sameSite).toBe('Lax');

    await page.type('#create-token input[name="name"]', 'laptop');
    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#create-token button[type="submit"]')]);
    const token = await textOf(page, '#token');
    expect(token).toMatch(/^tok_[A-Za-z0-9]{32}$/);
    const repos = await fetch(`${gateway.baseUrl}/api/v1/svc/repos`, { headers: { authorization: `Bearer ${token}` } });
    expect(repos.status).toBe(200);
    expect(((await repos.json()) as { ok: boolean }).ok).toBe(true);

    await page.goto(`${gateway.baseUrl}/settings`, { waitUntil: 'domcontentloaded' });
    const row = await textOf(page, '#tokens tbody');
    expect(row).toContain('laptop');
    expect(row).toContain(token.slice(0, 12));
    expect(row).not.toContain(token);
    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#tokens form button')]);
    expect(page.url()).toBe(`${gateway.baseUrl}/settings`);
    expect(await textOf(page, '#tokens .status')).toBe('revoked');
    const revoked = await fetch(`${gateway.baseUrl}/api/v1/svc/repos`, { headers: { authorization: `Bearer ${token}` } });
    expect(revoked.status).toBe(401);

    // Sign-out ends the session here and at the provider (its confirmation page), then lands on /auth/signed-out.
    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('#sign-out')]);
    expect(page.url().startsWith(`${provider.issuer}/session/end`)).toBe(true);
    await Promise.all([page.waitForNavigation({ waitUntil: 'domcontentloaded' }), page.click('button[name="logout"]')]);
    expect(page.url()).toMatch(new RegExp(`^${gateway.baseUrl}/auth/signed-out`));
    expect(await textOf(page, 'h1')).toBe('Signed out');
    const copy = await fetch(`${gateway.baseUrl}/api/session`, { headers: { cookie: `ars_session=${sessionCookie?.value ?? ''}` } });
    expect(copy.status).toBe(401);
  });
});

// ---- every refused callback, over HTTP ----

describe('the callback refuses what the spec says to refuse: 400 or 403 with a page saying why, and creates nothing', () => {
  test('a callback whose state is not the one this browser’s sign-in sent: 400', async () => {
    const jar = new CookieJar();
    const url = await untilCallback(jar, 'bob');
    url.searchParams.set('state', 'a-state-this-browser-never-sent-0123');
    await expectRefused(await callback(jar, url), 400, /state does not match/, 'bob');
  });

  test('a replayed callback (its sign-in already finished) is 400; a code replayed into another sign-in is refused by the provider (invalid_grant): 400', async () => {
    const jar = new CookieJar();
    const first = await untilCallback(jar, 'carol');
    const done = await callback(jar, first);
    expect([done.status, done.location, done.session]).toEqual([303, '/settings', true]);
    expect(await usersOf('carol')).toBe(1);

    const replay = await callback(new CookieJar(), first);
    expect(replay.status).toBe(400);
    expect(replay.body).toMatch(/no sign-in under way/);
    const again = await callback(jar, first);
    expect(again.status).toBe(400);

    const other = new CookieJar();
    const second = await untilCallback(other, 'dave');
    second.searchParams.set('code', first.searchParams.get('code') ?? '');
    await expectRefused(await callback(other, second), 400, /invalid_grant/, 'dave');
    expect(await usersOf('carol')).toBe(1);
  });

  test('a nonce changed on the way to the provider: the ID token’s nonce is not this sign-in’s: 400', async () => {
    const jar = new CookieJar();
    const url = await untilCallback(jar, 'erin', {
      rewriteAuthorization: (authorization) => authorization.searchParams.set('nonce', 'an-attacker-nonce-0123456789'),
    });
    await expectRefused(await callback(jar, url), 400, /nonce does not match/, 'erin');
  });

  test('an ID token for another audience (signed by the provider): 400', async () => {
    const jar = new CookieJar();
    const url = await untilCallback(jar, 'erin');
    provider.tamperIdTokens((payload) => ({ ...payload, aud: 'another-client' }));
    try {
      await expectRefused(await callback(jar, url), 400, /aud does not match/, 'erin');
    } finally {
      provider.tamperIdTokens(null);
    }
  });

  test('an expired ID token (signed by the provider): 400', async () => {
    const jar = new CookieJar();
    const url = await untilCallback(jar, 'erin');
    const now = Math.floor(Date.now() / 1000);
    provider.tamperIdTokens((payload) => ({ ...payload, iat: now - 7200, exp: now - 3600 }));
    try {
      await expectRefused(await callback(jar, url), 400, /expired or not yet valid \(exp\)/, 'erin');
    } finally {
      provider.tamperIdTokens(null);
    }
  });

  test('an ID token signed with a key the provider never published (its claims all right): 400', async () => {
    const jar = new CookieJar();
    const url = await untilCallback(jar, 'erin');
    provider.tamperIdTokens((payload) => payload, { signedBy: 'another key' });
    try {
      await expectRefused(await callback(jar, url), 400, /did not pass the checks of a sign-in/, 'erin');
    } finally {
      provider.tamperIdTokens(null);
    }
  });

  test('an email outside OIDC_ALLOWED_EMAIL_DOMAINS: 403; an unverified email of an allowed domain: 403', async () => {
    const outside = new CookieJar();
    await expectRefused(
      await callback(outside, await untilCallback(outside, 'mallory')),
      403,
      /mallory@elsewhere\.example is not of a domain allowed/,
      'mallory',
    );
    const unverified = new CookieJar();
    await expectRefused(await callback(unverified, await untilCallback(unverified, 'unverified')), 403, /is not verified/, 'unverified');
  });

  test('the user cancels at the provider (access_denied): 403', async () => {
    const jar = new CookieJar();
    const url = await untilCallback(jar, 'erin', { cancel: true });
    expect(url.searchParams.get('error')).toBe('access_denied');
    await expectRefused(await callback(jar, url), 403, /access_denied/, 'erin');
  });

  test('a callback with no sign-in started in this browser: 400', async () => {
    const answer = await callback(new CookieJar(), new URL(`${gateway.baseUrl}/auth/callback?code=abc&state=def`));
    expect(answer.status).toBe(400);
    expect(answer.session).toBe(false);
  });
});

describe('offboarding: a disabled user cannot sign in again', () => {
  test('grace signs in; disabled by email (the internal route disable-user calls): her session ends, and the next sign-in is 403', async () => {
    const jar = new CookieJar();
    expect((await callback(jar, await untilCallback(jar, 'grace'))).status).toBe(303);
    const disabled = await fetch(`${gateway.baseUrl}/internal/admin/users/disable`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-internal-token': system().internalToken },
      body: JSON.stringify({ user: 'Grace@Example.com' }),
    });
    expect(disabled.status).toBe(200);
    expect(await disabled.json()).toMatchObject({ ok: true, data: { user: { email: 'grace@example.com' }, sessionsEnded: 1 } });
    expect((await go(jar, `${gateway.baseUrl}/api/session`)).status).toBe(401);
    const again = new CookieJar();
    const refused = await callback(again, await untilCallback(again, 'grace'));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatch(/This account is disabled/);
    expect(refused.session).toBe(false);
  });
});

describe('returnTo: only a path of the gateway; anything else is ignored (no open redirect)', () => {
  test.each([
    ['/cli/login?x=1', '/cli/login?x=1'],
    ['https://evil.example/steal', '/settings'],
    ['//evil.example/steal', '/settings'],
    ['/\\evil.example', '/settings'],
  ])('returnTo=%s ends at %s', async (returnTo, expected) => {
    const jar = new CookieJar();
    const done = await callback(jar, await untilCallback(jar, 'frank', { returnTo }));
    expect([done.status, done.location]).toEqual([303, expected]);
  });
});
