import { setTimeout as sleep } from 'node:timers/promises';
import { PUBLIC_ROUTES } from '../domain/routeTable.js';
import { bearer, call, createToken, dataOf, errorOf, gatewaySuite, storeExpiringToken, tenant, type CreatedToken } from '../testing/index.js';

const suite = gatewaySuite();
/**
 * A stored PAT's life in the expiry tests: its first request must be answered before it ends, on a
 * loaded CI host too (two seconds were too few beside a whole CI run).
 */
const EXPIRES_IN_MS = 6_000;

async function freshToken(): Promise<CreatedToken> {
  return (await tenant(suite.gateway.baseUrl)).token;
}

/** A concrete URL and body for a route of the index. */
function requestFor(route: (typeof PUBLIC_ROUTES)[number]): { url: string; init: RequestInit & { json?: unknown } } {
  const path = route.path.replace(/:[A-Za-z]+/g, 'x1');
  const init: RequestInit & { json?: unknown } = { method: route.method };
  if (route.method === 'POST' || route.method === 'PUT') init.json = {};
  if (route.idempotencyKey) init.headers = { 'idempotency-key': 'k1' };
  return { url: `${suite.api}${path}`, init };
}

const tokenRoutes = PUBLIC_ROUTES.filter((r) => r.auth === 'read' || r.auth === 'write');

describe('every public route needs a PAT: missing, malformed, unknown → 401 UNAUTHORIZED', () => {
  test.each(tokenRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s without Authorization is 401', async (_name, route) => {
    const { url, init } = requestFor(route);
    const answer = await call(url, init);
    expect(answer.status).toBe(401);
    expect(errorOf(answer)).toEqual({ code: 'UNAUTHORIZED', message: expect.stringContaining('Missing Authorization') });
    expect(answer.headers.get('x-request-id')).toBeTruthy();
  });

  test.each([['Basic dXNlcjpwYXNz'], ['Bearer'], ['Bearer tok_short'], [`Bearer pat_${'a'.repeat(32)}`], [`Token tok_${'a'.repeat(32)}`]])(
    'Authorization %j is malformed: 401',
    async (header) => {
      const answer = await call(`${suite.api}/repos`, { headers: { authorization: header } });
      expect(answer.status).toBe(401);
      expect(errorOf(answer).message).toContain('Malformed');
    },
  );

  test('a well-formed token nobody issued is 401 Invalid', async () => {
    const answer = await call(`${suite.api}/repos`, { headers: bearer(`tok_${'Z'.repeat(32)}`) });
    expect(answer.status).toBe(401);
    expect(errorOf(answer).message).toBe('Invalid access token');
  });
});

describe('revocation and expiry take effect on the very next request', () => {
  test('a token works, is revoked, and the next request is 401 revoked', async () => {
    const { account, token } = await tenant(suite.gateway.baseUrl);
    expect((await call(`${suite.api}/agents`, { headers: bearer(token.token) })).status).toBe(200);
    const revoke = await call(`${suite.gateway.baseUrl}/api/settings/api-keys/${token.id}`, { method: 'DELETE', headers: { cookie: account.sessionCookie } });
    expect(revoke.status).toBe(200);
    const next = await call(`${suite.api}/agents`, { headers: bearer(token.token) });
    expect(next.status).toBe(401);
    expect(errorOf(next)).toEqual({ code: 'UNAUTHORIZED', message: 'Access token has been revoked' });
  });

  test('a token past its expiresAt is 401 expired on the next request', async () => {
    const { account } = await tenant(suite.gateway.baseUrl);
    // A day (the shortest expiresInDays) cannot pass in a test: a PAT is stored expiring seconds from
    // now instead (EXPIRES_IN_MS). Its expiresAt never changes once made, and the gateway that keeps it checks that.
    const { plaintext, expiresAt } = await storeExpiringToken(suite.gateway, account.userId, EXPIRES_IN_MS);
    expect((await call(`${suite.api}/agents`, { headers: bearer(plaintext) })).status).toBe(200);
    await sleep(Math.max(0, expiresAt.getTime() - Date.now()) + 50);
    const next = await call(`${suite.api}/agents`, { headers: bearer(plaintext) });
    expect(next.status).toBe(401);
    expect(errorOf(next)).toEqual({ code: 'UNAUTHORIZED', message: 'Access token has expired' });
  });
});

describe('scopes: read grants every GET, write the mutating routes; a missing scope is 403 naming it and write', () => {
  const writeRoutes = PUBLIC_ROUTES.filter((r) => r.auth === 'write');

  test("the index has the contract's 9 write routes", () => {
    expect(writeRoutes.filter((r) => !r.addition).map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /sandboxes',
      'POST /automations',
      'PUT /automations/:automationId',
      'POST /automations/:automationId/publish',
      'PUT /automations/:automationId/model',
      'POST /automations/:automationId/trigger',
      'POST /pr-reviews/rerun',
      'POST /runs',
      'POST /runs/:runId/cancel',
    ]);
  });

  test.each(writeRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))('a read-only token gets 403 on %s', async (_name, route) => {
    const { account } = await tenant(suite.gateway.baseUrl);
    const readOnly = await createToken(suite.gateway.baseUrl, account, { name: 'ro', scopes: ['read'] });
    const { url, init } = requestFor(route);
    const answer = await call(url, { ...init, headers: { ...(init.headers as Record<string, string>), ...bearer(readOnly.token) } });
    expect(answer.status).toBe(403);
    expect(errorOf(answer).code).toBe('FORBIDDEN');
    expect(errorOf(answer).message).toContain("'write'");
  });

  test('a read-only token reads; a write-only token gets 403 on a GET naming read (and write)', async () => {
    const { account } = await tenant(suite.gateway.baseUrl);
    const readOnly = await createToken(suite.gateway.baseUrl, account, { name: 'ro', scopes: ['read'] });
    expect((await call(`${suite.api}/repos`, { headers: bearer(readOnly.token) })).status).toBe(200);
    const writeOnly = await createToken(suite.gateway.baseUrl, account, { name: 'wo', scopes: ['write'] });
    const answer = await call(`${suite.api}/repos`, { headers: bearer(writeOnly.token) });
    expect(answer.status).toBe(403);
    expect(errorOf(answer).message).toContain("'read'");
    expect(errorOf(answer).message).toContain('write');
  });
});

describe("tenancy: another user's resources are 404, never 403", () => {
  test("one user's repos are not in another's list", async () => {
    const a = await tenant(suite.gateway.baseUrl);
    const b = await tenant(suite.gateway.baseUrl);
    const reposOfB = dataOf(await call<{ repos: { id: string }[] }>(`${suite.api}/repos`, { headers: bearer(b.token.token) })).repos.map((r) => r.id);
    expect(reposOfB).toHaveLength(2);
    for (const repo of a.account.repos) expect(reposOfB).not.toContain(repo.id);
  });

  test("another user's run is 404 NOT_FOUND (the gateway asks runs as the authenticated user)", async () => {
    const a = await tenant(suite.gateway.baseUrl);
    const b = await tenant(suite.gateway.baseUrl);
    const started = await call<{ runId: string }>(`${suite.api}/runs`, {
      method: 'POST',
      headers: { ...bearer(a.token.token), 'idempotency-key': 'tenancy' },
      json: { repoId: a.account.repos[0]?.id, prompt: '@say hello' },
    });
    const { runId } = dataOf(started);
    expect((await call(`${suite.api}/runs/${runId}`, { headers: bearer(a.token.token) })).status).toBe(200);
    for (const path of [`/runs/${runId}`, `/runs/${runId}/events`]) {
      const foreign = await call(`${suite.api}${path}`, { headers: bearer(b.token.token) });
      expect(foreign.status).toBe(404);
      expect(errorOf(foreign).code).toBe('NOT_FOUND');
    }
    const cancel = await call(`${suite.api}/runs/${runId}/cancel`, { method: 'POST', headers: bearer(b.token.token) });
    expect(cancel.status).toBe(404);
  });
});

describe('the body is read only after authentication, and a bad body counts against the PAT', () => {
  test('malformed JSON without a token is 401, not 400', async () => {
    const answer = await call(`${suite.api}/sandboxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    expect(answer.status).toBe(401);
  });

  test('60 malformed bodies with one PAT, then the 61st request is 429', async () => {
    const token = await freshToken();
    for (let i = 0; i < 60; i += 1) {
      const answer = await call(`${suite.api}/sandboxes`, {
        method: 'POST',
        headers: { ...bearer(token.token), 'content-type': 'application/json' },
        body: '{',
      });
      expect(answer.status).toBe(400);
    }
    expect((await call(`${suite.api}/agents`, { headers: bearer(token.token) })).status).toBe(429);
  });

  test('a read-only token sending a write route a malformed body gets 403 (scope before body)', async () => {
    const { account } = await tenant(suite.gateway.baseUrl);
    const readOnly = await createToken(suite.gateway.baseUrl, account, { name: 'ro', scopes: ['read'] });
    const answer = await call(`${suite.api}/sandboxes`, {
      method: 'POST',
      headers: { ...bearer(readOnly.token), 'content-type': 'application/json' },
      body: '{',
    });
    expect(answer.status).toBe(403);
  });
});
