import { createHash } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { startSystem, type System } from '@ars/system-tests/support';
import { bearer, call, createAccount, createToken, dataOf, errorOf, tenant } from '../testing/index.js';

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

describe("GET /api/settings/api-keys lists the session user's tokens without secrets", () => {
  test("each token once, no plaintext or hash, another user's tokens absent", async () => {
    const { account, token } = await tenant(gateway.baseUrl, { name: 'first' });
    const other = await tenant(gateway.baseUrl, { name: 'someone else' });
    const answer = await call<{ apiKeys: Record<string, unknown>[] }>(keys, { headers: { cookie: account.sessionCookie } });
    const list = dataOf(answer).apiKeys;
    expect(list.map((k) => k.id)).toEqual([token.id]);
    expect(list[0]).toMatchObject({
      id: token.id,
      name: 'first',
      prefix: token.prefix,
      scopes: ['read', 'write'],
      expiresAt: token.expiresAt,
      revokedAt: null,
    });
    const text = JSON.stringify(answer.body);
    expect(text).not.toContain(token.token);
    expect(text).not.toContain(other.token.id);
    expect(text).not.toContain(createHash('sha256').update(token.token).digest('hex'));
  });
});

describe('DELETE /api/settings/api-keys/{id} revokes the token', () => {
  test("sets revokedAt; another user's token id is 404 and stays usable", async () => {
    const { account, token } = await tenant(gateway.baseUrl);
    const other = await tenant(gateway.baseUrl);
    const foreign = await call(`${keys}/${other.token.id}`, { method: 'DELETE', headers: { cookie: account.sessionCookie } });
    expect(foreign.status).toBe(404);
    expect(errorOf(foreign).code).toBe('NOT_FOUND');
    expect((await call(`${gateway.baseUrl}/api/v1/svc/agents`, { headers: bearer(other.token.token) })).status).toBe(200);

    const revoked = await call<{ apiKey: { revokedAt: string | null } }>(`${keys}/${token.id}`, {
      method: 'DELETE',
      headers: { cookie: account.sessionCookie },
    });
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
    for (const headers of [{}, { cookie: 'ars_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, { cookie: 'ars_session=garbage' }] as Record<
      string,
      string
    >[]) {
      const answer = await call(keys, { headers });
      expect(answer.status).toBe(401);
      expect(errorOf(answer).code).toBe('UNAUTHORIZED');
    }
  });
});
