import { createHash } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { bearer, call, createAccount, createToken, dataOf, errorOf, gatewaySuite, tenant } from '../testing/index.js';

const suite = gatewaySuite();

describe('POST /api/settings/api-keys creates a token shown once: {id, token, prefix, scopes, expiresAt}', () => {
  test('only the SHA-256 and the prefix are stored, never the plaintext', async () => {
    const account = await createAccount(suite.gateway.baseUrl);
    const created = await createToken(suite.gateway.baseUrl, account);
    const client = await MongoClient.connect(suite.gateway.mongoUrl);
    try {
      const stored = await client.db(suite.gateway.mongoDb).collection('personal_access_tokens').findOne({ userId: account.userId });
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
    const { account, token } = await tenant(suite.gateway.baseUrl, { name: 'first' });
    const other = await tenant(suite.gateway.baseUrl, { name: 'someone else' });
    const answer = await call<{ apiKeys: Record<string, unknown>[] }>(suite.keys, { headers: { cookie: account.sessionCookie } });
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
    const { account, token } = await tenant(suite.gateway.baseUrl);
    const other = await tenant(suite.gateway.baseUrl);
    const foreign = await call(`${suite.keys}/${other.token.id}`, { method: 'DELETE', headers: { cookie: account.sessionCookie } });
    expect(foreign.status).toBe(404);
    expect(errorOf(foreign).code).toBe('NOT_FOUND');
    expect((await call(`${suite.gateway.baseUrl}/api/v1/svc/agents`, { headers: bearer(other.token.token) })).status).toBe(200);

    const revoked = await call<{ apiKey: { revokedAt: string | null } }>(`${suite.keys}/${token.id}`, {
      method: 'DELETE',
      headers: { cookie: account.sessionCookie },
    });
    expect(revoked.status).toBe(200);
    expect(dataOf(revoked).apiKey.revokedAt).not.toBeNull();
  });
});

describe('the PAT lifecycle routes need a browser session: PATs cannot issue PATs', () => {
  test('a bearer PAT is 403 FORBIDDEN on create, list and revoke', async () => {
    const { token } = await tenant(suite.gateway.baseUrl);
    for (const [method, url] of [
      ['POST', suite.keys],
      ['GET', suite.keys],
      ['DELETE', `${suite.keys}/${token.id}`],
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
      const answer = await call(suite.keys, { headers });
      expect(answer.status).toBe(401);
      expect(errorOf(answer).code).toBe('UNAUTHORIZED');
    }
  });
});
