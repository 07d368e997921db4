import { bearer, call, createAccount, dataOf, errorOf, gatewaySuite, startGatewayUnderTest, tenant, type GatewayUnderTest } from '../testing/index.js';

const suite = gatewaySuite();

describe("mutating session routes check Origin against the gateway's public origin", () => {
  test('a foreign Origin is 403 and creates nothing; the public origin is accepted', async () => {
    const account = await createAccount(suite.gateway.baseUrl);
    const forged = await call(suite.keys, { method: 'POST', headers: { cookie: account.sessionCookie, origin: 'https://evil.example' }, json: { name: 'x' } });
    expect(forged.status).toBe(403);
    expect(errorOf(forged).message).toContain('https://evil.example');
    const nullOrigin = await call(suite.keys, { method: 'POST', headers: { cookie: account.sessionCookie, origin: 'null' }, json: { name: 'x' } });
    expect(nullOrigin.status).toBe(403);
    const crossSite = await call(suite.keys, {
      method: 'POST',
      headers: { cookie: account.sessionCookie, 'sec-fetch-site': 'cross-site' },
      json: { name: 'x' },
    });
    expect(crossSite.status).toBe(403);
    const list = await call<{ apiKeys: unknown[] }>(suite.keys, { headers: { cookie: account.sessionCookie } });
    expect(dataOf(list).apiKeys).toHaveLength(0);

    const same = await call(suite.keys, {
      method: 'POST',
      headers: { cookie: account.sessionCookie, origin: new URL(suite.gateway.baseUrl).origin },
      json: { name: 'x' },
    });
    expect(same.status).toBe(201);
  });

  test('revoke with a foreign Origin is 403 and the token keeps working', async () => {
    const { account, token } = await tenant(suite.gateway.baseUrl);
    const forged = await call(`${suite.keys}/${token.id}`, { method: 'DELETE', headers: { cookie: account.sessionCookie, origin: 'http://127.0.0.1:1' } });
    expect(forged.status).toBe(403);
    expect((await call(`${suite.gateway.baseUrl}/api/v1/svc/agents`, { headers: bearer(token.token) })).status).toBe(200);
  });
});

describe('the session cookie is HttpOnly, SameSite=Lax, expires, and logout ends it', () => {
  test('Set-Cookie of a new session: HttpOnly, SameSite=Lax, Max-Age of 7 days, not Secure over plain HTTP', async () => {
    const answer = await call(`${suite.gateway.baseUrl}/api/dev/accounts`, { method: 'POST', json: {} });
    const cookie = answer.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^ars_session=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain(`Max-Age=${7 * 24 * 3600}`);
    expect(cookie).not.toContain('Secure');
  });

  test('X-Forwarded-Proto: https is ignored unless the proxy is trusted', async () => {
    const answer = await call(`${suite.gateway.baseUrl}/api/dev/accounts`, { method: 'POST', headers: { 'x-forwarded-proto': 'https' }, json: {} });
    expect(answer.headers.get('set-cookie')).not.toContain('Secure');
  });

  test('logout deletes the session: the same cookie is 401 afterwards', async () => {
    const account = await createAccount(suite.gateway.baseUrl);
    expect(dataOf(await call<{ userId: string }>(`${suite.gateway.baseUrl}/api/session`, { headers: { cookie: account.sessionCookie } })).userId).toBe(
      account.userId,
    );
    const out = await call(`${suite.gateway.baseUrl}/api/session/logout`, { method: 'POST', headers: { cookie: account.sessionCookie } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await call(suite.keys, { headers: { cookie: account.sessionCookie } })).status).toBe(401);
  });
});

describe('session expiry and Secure behind a trusted TLS proxy (configured gateway)', () => {
  let short: GatewayUnderTest;
  beforeAll(async () => {
    short = await startGatewayUnderTest({ system: suite.system, env: { SESSION_TTL_SECONDS: '1', TRUST_PROXY: 'true' } });
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
