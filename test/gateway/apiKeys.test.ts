import { createHash } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { startGatewayUnderTest, type GatewayUnderTest } from './support/gatewayUnderTest.js';
import { startSystem, type System } from '../support/system.js';
import { bearer, call, createAccount, createToken, dataOf, errorOf, tenant } from '../support/accounts.js';

let system: System;
let gateway: System['gateway'];
let keys: string;
beforeAll(async () => {
  system = await startSystem();
  gateway = system.gateway;
  keys = `${gateway.baseUrl}/api/settings/api-keys`;
}, 120_000);
afterAll(async () => {
  await system?.stop();
}, 60_000);

describe('POST /api/settings/api-keys creates a token shown once: {id, token, prefix, scopes, expiresAt}', () => {
  test('201 with tok_ + 32 base62, a 12-character prefix, both scopes by default, expiresAt a date 90 days ahead without expiresInDays', async () => {
    const account = await createAccount(gateway.baseUrl);
    const before = Date.now();
    const answer = await call<Record<string, unknown>>(keys, { method: 'POST', headers: { cookie: account.sessionCookie }, json: { name: 'ci' } });
    expect(answer.status).toBe(201);
    const data = dataOf(answer);
    expect(Object.keys(data).sort()).toEqual(['expiresAt', 'id', 'prefix', 'scopes', 'token']);
    expect(data.token).toMatch(/^tok_[0-9A-Za-z]{32}$/);
    expect(data.prefix).toBe(String(data.token).slice(0, 12));
    expect(data.scopes).toEqual(['read', 'write']);
    expect(typeof data.expiresAt).toBe('string');
    const expires = Date.parse(String(data.expiresAt));
    expect(new Date(expires).toISOString()).toBe(data.expiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + 90 * 86_400_000 - 1_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 90 * 86_400_000 + 1_000);
  });

  test('expiresInDays sets expiresAt that many days ahead; scopes may be read only', async () => {
    const account = await createAccount(gateway.baseUrl);
    const before = Date.now();
    const created = await createToken(gateway.baseUrl, account, { name: 'ro', scopes: ['read'], expiresInDays: 3 });
    expect(created.scopes).toEqual(['read']);
    const expires = Date.parse(created.expiresAt ?? '');
    expect(expires).toBeGreaterThanOrEqual(before + 3 * 86_400_000 - 1_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 3 * 86_400_000 + 1_000);
  });

  test.each([
    [{}, 'name is required'],
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 7 }, 'name must be a string'],
    [{ name: 'x', scopes: [] }, 'scopes'],
    [{ name: 'x', scopes: ['admin'] }, 'scopes'],
    [{ name: 'x', scopes: 'read' }, 'scopes must be an array'],
    [{ name: 'x', expiresInDays: 0 }, 'expiresInDays'],
    [{ name: 'x', expiresInDays: 1.5 }, 'expiresInDays must be an integer'],
    [{ name: 'x', expiresInDays: '3' }, 'expiresInDays must be an integer'],
  ])('%j is 400 BAD_REQUEST naming the field', async (body, field) => {
    const account = await createAccount(gateway.baseUrl);
    const answer = await call(keys, { method: 'POST', headers: { cookie: account.sessionCookie }, json: body });
    expect(answer.status).toBe(400);
    expect(errorOf(answer).code).toBe('BAD_REQUEST');
    expect(errorOf(answer).message).toContain(field);
  });

  test('only the SHA-256 and the prefix are stored, never the plaintext', async () => {
    const account = await createAccount(gateway.baseUrl);
    const created = await createToken(gateway.baseUrl, account);
    const client = await MongoClient.connect(gateway.mongoUrl);
    try {
      const stored = await client.db(gateway.mongoDb).collection('personal_access_tokens').findOne({ userId: account.userId });
      expect(stored?.tokenHash).toBe(createHash('sha256').update(created.token).digest('hex'));
      expect(stored?.prefix).toBe(created.prefix);
      expect(JSON.stringify(stored)).not.toContain(created.token);
    } finally {
      await client.close();
    }
  });
});

describe('GET /api/settings/api-keys lists the session user\'s tokens without secrets', () => {
  test('each token once, no plaintext or hash, another user\'s tokens absent', async () => {
    const { account, token } = await tenant(gateway.baseUrl, { name: 'first' });
    const other = await tenant(gateway.baseUrl, { name: 'someone else' });
    const answer = await call<{ apiKeys: Record<string, unknown>[] }>(keys, { headers: { cookie: account.sessionCookie } });
    const list = dataOf(answer).apiKeys;
    expect(list.map((k) => k.id)).toEqual([token.id]);
    expect(list[0]).toMatchObject({ id: token.id, name: 'first', prefix: token.prefix, scopes: ['read', 'write'], expiresAt: token.expiresAt, revokedAt: null });
    const text = JSON.stringify(answer.body);
    expect(text).not.toContain(token.token);
    expect(text).not.toContain(other.token.id);
    expect(text).not.toContain(createHash('sha256').update(token.token).digest('hex'));
  });
});

describe('DELETE /api/settings/api-keys/{id} revokes the token', () => {
  test('sets revokedAt; another user\'s token id is 404 and stays usable', async () => {
    const { account, token } = await tenant(gateway.baseUrl);
    const other = await tenant(gateway.baseUrl);
    const foreign = await call(`${keys}/${other.token.id}`, { method: 'DELETE', headers: { cookie: account.sessionCookie } });
    expect(foreign.status).toBe(404);
    expect(errorOf(foreign).code).toBe('NOT_FOUND');
    expect((await call(`${gateway.baseUrl}/api/v1/svc/agents`, { headers: bearer(other.token.token) })).status).toBe(200);

    const revoked = await call<{ apiKey: { revokedAt: string | null } }>(`${keys}/${token.id}`, { method: 'DELETE', headers: { cookie: account.sessionCookie } });
    expect(revoked.status).toBe(200);
    expect(dataOf(revoked).apiKey.revokedAt).not.toBeNull();
  });
});

describe('the PAT lifecycle routes need a browser session: PATs cannot issue PATs', () => {
  test('a bearer PAT is 403 FORBIDDEN on create, list and revoke', async () => {
    const { token } = await tenant(gateway.baseUrl);
    for (const [method, url] of [
      ['POST', keys],
      ['GET', keys],
      ['DELETE', `${keys}/${token.id}`],
    ] as const) {
      const answer = await call(url, { method, headers: bearer(token.token), ...(method === 'POST' ? { json: { name: 'x' } } : {}) });
      expect(answer.status).toBe(403);
      expect(errorOf(answer).code).toBe('FORBIDDEN');
    }
  });

  test('no session is 401; an unknown session cookie is 401', async () => {
    for (const headers of [{}, { cookie: 'ars_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, { cookie: 'ars_session=garbage' }] as Record<string, string>[]) {
      const answer = await call(keys, { headers });
      expect(answer.status).toBe(401);
      expect(errorOf(answer).code).toBe('UNAUTHORIZED');
    }
  });
});

describe('mutating session routes check Origin against the gateway\'s public origin', () => {
  test('a foreign Origin is 403 and creates nothing; the public origin is accepted', async () => {
    const account = await createAccount(gateway.baseUrl);
    const forged = await call(keys, { method: 'POST', headers: { cookie: account.sessionCookie, origin: 'https://evil.example' }, json: { name: 'x' } });
    expect(forged.status).toBe(403);
    expect(errorOf(forged).message).toContain('https://evil.example');
    const nullOrigin = await call(keys, { method: 'POST', headers: { cookie: account.sessionCookie, origin: 'null' }, json: { name: 'x' } });
    expect(nullOrigin.status).toBe(403);
    const crossSite = await call(keys, { method: 'POST', headers: { cookie: account.sessionCookie, 'sec-fetch-site': 'cross-site' }, json: { name: 'x' } });
    expect(crossSite.status).toBe(403);
    const list = await call<{ apiKeys: unknown[] }>(keys, { headers: { cookie: account.sessionCookie } });
    expect(dataOf(list).apiKeys).toHaveLength(0);

    const same = await call(keys, { method: 'POST', headers: { cookie: account.sessionCookie, origin: new URL(gateway.baseUrl).origin }, json: { name: 'x' } });
    expect(same.status).toBe(201);
  });

  test('revoke with a foreign Origin is 403 and the token keeps working', async () => {
    const { account, token } = await tenant(gateway.baseUrl);
    const forged = await call(`${keys}/${token.id}`, { method: 'DELETE', headers: { cookie: account.sessionCookie, origin: 'http://127.0.0.1:1' } });
    expect(forged.status).toBe(403);
    expect((await call(`${gateway.baseUrl}/api/v1/svc/agents`, { headers: bearer(token.token) })).status).toBe(200);
  });
});

describe('the session cookie is HttpOnly, SameSite=Lax, expires, and logout ends it', () => {
  test('Set-Cookie of a new session: HttpOnly, SameSite=Lax, Max-Age of 7 days, not Secure over plain HTTP', async () => {
    const answer = await call(`${gateway.baseUrl}/api/dev/accounts`, { method: 'POST', json: {} });
    const cookie = answer.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^ars_session=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain(`Max-Age=${7 * 24 * 3600}`);
    expect(cookie).not.toContain('Secure');
  });

  test('X-Forwarded-Proto: https is ignored unless the proxy is trusted', async () => {
    const answer = await call(`${gateway.baseUrl}/api/dev/accounts`, { method: 'POST', headers: { 'x-forwarded-proto': 'https' }, json: {} });
    expect(answer.headers.get('set-cookie')).not.toContain('Secure');
  });

  test('logout deletes the session: the same cookie is 401 afterwards', async () => {
    const account = await createAccount(gateway.baseUrl);
    expect(dataOf(await call<{ userId: string }>(`${gateway.baseUrl}/api/session`, { headers: { cookie: account.sessionCookie } })).userId).toBe(account.userId);
    const out = await call(`${gateway.baseUrl}/api/session/logout`, { method: 'POST', headers: { cookie: account.sessionCookie } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await call(keys, { headers: { cookie: account.sessionCookie } })).status).toBe(401);
  });
});

describe('session expiry and Secure behind a trusted TLS proxy (configured gateway)', () => {
  let short: GatewayUnderTest;
  beforeAll(async () => {
    short = await startGatewayUnderTest({ system, env: { SESSION_TTL_SECONDS: '1', TRUST_PROXY: 'true' } });
  }, 60_000);
  afterAll(async () => {
    await short?.stop();
  });

  test('a session older than SESSION_TTL_SECONDS is 401', async () => {
    const account = await createAccount(short.baseUrl);
    expect((await call(`${short.baseUrl}/api/settings/api-keys`, { headers: { cookie: account.sessionCookie } })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect((await call(`${short.baseUrl}/api/settings/api-keys`, { headers: { cookie: account.sessionCookie } })).status).toBe(401);
  });

  test('with TRUST_PROXY=true, X-Forwarded-Proto: https makes the cookie Secure', async () => {
    const answer = await call(`${short.baseUrl}/api/dev/accounts`, { method: 'POST', headers: { 'x-forwarded-proto': 'https' }, json: {} });
    expect(answer.headers.get('set-cookie')).toContain('Secure');
    const plain = await call(`${short.baseUrl}/api/dev/accounts`, { method: 'POST', json: {} });
    expect(plain.headers.get('set-cookie')).not.toContain('Secure');
  });
});
