import { call, createAccount, createToken, dataOf, gatewaySuite } from '../testing/index.js';

const suite = gatewaySuite();

describe('POST /api/settings/api-keys creates a token shown once: {id, token, prefix, scopes, expiresAt}', () => {
  test('201 with tok_ + 32 base62, a 12-character prefix, both scopes by default, expiresAt a date 90 days ahead without expiresInDays', async () => {
    const account = await createAccount(suite.gateway.baseUrl);
    const before = Date.now();
    const answer = await call<Record<string, unknown>>(suite.keys, { method: 'POST', headers: { cookie: account.sessionCookie }, json: { name: 'ci' } });
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
    const account = await createAccount(suite.gateway.baseUrl);
    const before = Date.now();
    const created = await createToken(suite.gateway.baseUrl, account, { name: 'ro', scopes: ['read'], expiresInDays: 3 });
    expect(created.scopes).toEqual(['read']);
    const expires = Date.parse(created.expiresAt ?? '');
    expect(expires).toBeGreaterThanOrEqual(before + 3 * 86_400_000 - 1_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 3 * 86_400_000 + 1_000);
  });
});
