import { waitFor } from '@ars/testenv';
import { bearer, call, dataOf, errorOf, gatewaySuite, startRunAt, tenant, type CreatedToken } from '../testing/index.js';

/** A gateway whose unbuilt services are stand-ins that record what the gateway forwarded. */
const suite = gatewaySuite({ withStandIns: true });

async function freshToken(): Promise<CreatedToken> {
  return (await tenant(suite.gateway.baseUrl)).token;
}

describe('malformed JSON, a wrong content type and an oversized body are 400 BAD_REQUEST naming the problem', () => {
  test('malformed JSON', async () => {
    const token = await freshToken();
    const answer = await call(`${suite.api}/sandboxes`, {
      method: 'POST',
      headers: { ...bearer(token.token), 'content-type': 'application/json' },
      body: '{"repoId":',
    });
    expect(answer.status).toBe(400);
    expect(errorOf(answer)).toEqual({ code: 'BAD_REQUEST', message: 'Malformed JSON body' });
  });

  test('a body that is not application/json', async () => {
    const token = await freshToken();
    const answer = await call(`${suite.api}/runs`, {
      method: 'POST',
      headers: { ...bearer(token.token), 'content-type': 'text/plain', 'idempotency-key': 'k' },
      body: 'repoId=1',
    });
    expect(answer.status).toBe(400);
    expect(errorOf(answer).message).toBe('Content-Type must be application/json');
  });

  test('a body over 1mb', async () => {
    const token = await freshToken();
    const answer = await call(`${suite.api}/automations`, { method: 'POST', headers: bearer(token.token), json: { name: 'x'.repeat(1_100_000) } });
    expect(answer.status).toBe(400);
    expect(errorOf(answer).message).toBe('Request body exceeds the 1mb limit');
  });
});

describe('a body nested deeper than the kit allows is 400 BAD_REQUEST on every route that takes one, never a peer outage', () => {
  const deepBody = `{"name":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
  test.each([
    ['POST', '/sandboxes'],
    ['POST', '/automations'],
    ['PUT', '/automations/auto_1'],
    ['POST', '/automations/auto_1/publish'],
    ['POST', '/automations/events'],
    ['POST', '/pr-reviews/rerun'],
    ['POST', '/runs'],
  ])('%s %s with a body 10,000 levels deep', async (method, path) => {
    const token = await freshToken();
    const answer = await call(`${suite.api}${path}`, {
      method,
      headers: { ...bearer(token.token), 'content-type': 'application/json', 'idempotency-key': `deep-${path}` },
      body: deepBody,
    });
    expect(answer.status).toBe(400);
    expect(errorOf(answer)).toEqual({ code: 'BAD_REQUEST', message: 'Request body nests deeper than 64 levels of objects and arrays' });
  });
});

/** An integer past Number.MAX_SAFE_INTEGER: still an integer out of range, so clamped (not 400). */
const HUGE = '99999999999999999999';

describe("limit: not an integer is 400 naming it; out of range is clamped into the route's range", () => {
  const listRoutes = [
    ['/repos', undefined],
    ['/sandboxes', 'sandboxes'],
    ['/automations', 'automations-engine'],
    ['/automations/a1/runs', 'automations-engine'],
    ['/runs/r1/events', undefined],
  ] as const;

  test.each(listRoutes)('%s?limit=ten is 400 "limit must be an integer"', async (path) => {
    const token = await freshToken();
    for (const value of ['ten', '1.5']) {
      const answer = await call(`${suite.api}${path}?limit=${value}`, { headers: bearer(token.token) });
      expect(answer.status).toBe(400);
      expect(errorOf(answer)).toEqual({ code: 'BAD_REQUEST', message: 'limit must be an integer' });
    }
  });

  test.each([
    ['/sandboxes', 'sandboxes', { '0': 1, '-5': 1, '1000': 200, '': 100, '50': 50, [HUGE]: 200, [`-${HUGE}`]: 1 }],
    ['/automations', 'automations-engine', { '0': 1, '1000': 100, '': 50, '7': 7, [HUGE]: 100, [`-${HUGE}`]: 1 }],
    ['/automations/a1/runs', 'automations-engine', { '0': 1, '1000': 50, '': 20, '33': 33, [HUGE]: 50, [`-${HUGE}`]: 1 }],
  ] as const)('%s forwards the clamped limit to its owner', async (path, owner, cases) => {
    const { token } = await tenant(suite.standIns.baseUrl);
    for (const [sent, expected] of Object.entries(cases)) {
      const before = suite.standIns.peers[owner].received.length;
      const answer = await call(`${suite.standIns.baseUrl}/api/v1/svc${path}${sent === '' ? '' : `?limit=${sent}`}`, { headers: bearer(token.token) });
      expect(answer.status).toBe(404);
      const forwarded = suite.standIns.peers[owner].received[before];
      expect([sent, forwarded?.query.limit]).toEqual([sent, String(expected)]);
    }
  });

  test('/repos clamps: limit=0 gives 1 repository, limit=5000 all of them', async () => {
    const { token } = await tenant(suite.gateway.baseUrl);
    const one = await call<{ repos: unknown[] }>(`${suite.api}/repos?limit=0`, { headers: bearer(token.token) });
    expect(one.body.ok && one.body.data.repos).toHaveLength(1);
    const all = await call<{ repos: unknown[] }>(`${suite.api}/repos?limit=5000`, { headers: bearer(token.token) });
    expect(all.body.ok && all.body.data.repos).toHaveLength(2);
  });

  test(`a limit past the safe integers (${HUGE}, 400 nines) is clamped like any other on /repos, /sandboxes and /runs/{id}/events of the stack`, async () => {
    const { account, token } = await tenant(suite.gateway.baseUrl);
    const headers = bearer(token.token);
    const { runId } = dataOf(await startRunAt(suite.api, token.token, account, 'clamp', { repoId: account.repos[0]?.id, prompt: '@say clamp' }));
    await waitFor(
      'the run to succeed',
      async () => {
        const answer = await call<{ run: { status: string } }>(`${suite.api}/runs/${runId}`, { headers });
        return dataOf(answer).run.status === 'success';
        // One poll a second: the PAT's 60 requests a minute must leave room for the reads below.
      },
      { timeoutMs: 45_000, intervalMs: 1_000 },
    );
    for (const limit of [HUGE, '9'.repeat(400)]) {
      const repos = await call<{ repos: unknown[] }>(`${suite.api}/repos?limit=${limit}`, { headers });
      expect([limit, repos.status, repos.body.ok && repos.body.data.repos.length]).toEqual([limit, 200, expect.any(Number)]);
      const sandboxes = await call<{ sandboxes: unknown[] }>(`${suite.api}/sandboxes?limit=${limit}`, { headers });
      expect([limit, sandboxes.status]).toEqual([limit, 200]);
      const events = await call<{ events: unknown[] }>(`${suite.api}/runs/${runId}/events?limit=${limit}`, { headers });
      expect([limit, events.status, events.body.ok && events.body.data.events.length > 0]).toEqual([limit, 200, true]);
    }
    const small = await call<{ repos: unknown[] }>(`${suite.api}/repos?limit=-${HUGE}`, { headers });
    expect(small.body.ok && small.body.data.repos).toHaveLength(1);
  });
});

describe('routes: unknown ones under /api/v1/svc are 404 in the envelope; owners not built yet answer 404', () => {
  test('an unknown path and a wrong method are 404 NOT_FOUND in the envelope', async () => {
    const token = await freshToken();
    const unknown = await call(`${suite.api}/nope`, { headers: bearer(token.token) });
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown).code).toBe('NOT_FOUND');
    const wrongMethod = await call(`${suite.api}/repos`, { method: 'DELETE', headers: bearer(token.token) });
    expect(wrongMethod.status).toBe(404);
    expect(errorOf(wrongMethod).code).toBe('NOT_FOUND');
  });

  test('a route whose owner has no internal route yet is forwarded as the caller and answers 404 without naming internal paths', async () => {
    const { account, token } = await tenant(suite.standIns.baseUrl);
    const answer = await call(`${suite.standIns.baseUrl}/api/v1/svc/sandboxes/sb1/logs`, { headers: bearer(token.token) });
    expect(answer.status).toBe(404);
    expect(errorOf(answer)).toEqual({ code: 'NOT_FOUND', message: 'GET /sandboxes/:sandboxId/logs is not available yet' });
    const forwarded = suite.standIns.peers.sandboxes.received.at(-1);
    expect(forwarded).toMatchObject({ method: 'GET', path: `/internal/users/${account.userId}/sandboxes/sb1/logs`, caller: 'gateway' });
  });

  test('POST /automations/{id}/trigger needs Idempotency-Key (400) before it is forwarded', async () => {
    const token = await freshToken();
    const answer = await call(`${suite.api}/automations/a1/trigger`, { method: 'POST', headers: bearer(token.token), json: { repoId: 'r' } });
    expect(answer.status).toBe(400);
    expect(errorOf(answer).message).toContain('Idempotency-Key');
  });
});

describe('X-Request-Id is on every answer', () => {
  test('success, 400, 401, 403, 404 and a sane incoming id echoed', async () => {
    const { account } = await tenant(suite.gateway.baseUrl);
    const token = (await tenant(suite.gateway.baseUrl)).token;
    const answers = [
      await call(`${suite.api}/agents`, { headers: bearer(token.token) }),
      await call(`${suite.api}/repos?limit=x`, { headers: bearer(token.token) }),
      await call(`${suite.api}/agents`),
      await call(`${suite.gateway.baseUrl}/api/settings/api-keys`, { headers: bearer(token.token) }),
      await call(`${suite.api}/nope`, { headers: bearer(token.token) }),
      await call(`${suite.gateway.baseUrl}/api/settings/api-keys`, { headers: { cookie: account.sessionCookie } }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 400, 401, 403, 404, 200]);
    for (const answer of answers) expect(answer.headers.get('x-request-id')).toMatch(/\S/);
    const echoed = await call(`${suite.api}/agents`, { headers: { ...bearer(token.token), 'x-request-id': 'trace-me-42' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-me-42');
  });
});

describe('the MCP transport edge: PAT auth in JSON-RPC, GET 405, preflight', () => {
  test('GET /mcp is 405; OPTIONS /mcp answers CORS preflight', async () => {
    const get = await fetch(`${suite.api}/mcp`);
    expect(get.status).toBe(405);
    const preflight = await fetch(`${suite.api}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: new URL(suite.gateway.baseUrl).origin, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
  });

  test('POST /mcp without a PAT is 401 with JSON-RPC -32001; malformed JSON -32700; a notification 202', async () => {
    const token = await freshToken();
    const unauthenticated = await fetch(`${suite.api}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(unauthenticated.status).toBe(401);
    expect(((await unauthenticated.json()) as { error: { code: number } }).error.code).toBe(-32001);
    const malformed = await fetch(`${suite.api}/mcp`, { method: 'POST', headers: { ...bearer(token.token), 'content-type': 'application/json' }, body: '{' });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const notification = await fetch(`${suite.api}/mcp`, {
      method: 'POST',
      headers: { ...bearer(token.token), 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    });
    expect(notification.status).toBe(202);
  });
});

describe('the JSON-RPC error table: valid JSON that is not a request is -32600 (400); params of the wrong shape are -32602 (200)', () => {
  async function rpc(body: string): Promise<{ status: number; body: { id?: unknown; error?: { code: number; message: string } } }> {
    const token = await freshToken();
    const response = await fetch(`${suite.api}/mcp`, {
      method: 'POST',
      headers: { ...bearer(token.token), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
    });
    return { status: response.status, body: (await response.json()) as { error?: { code: number; message: string } } };
  }

  test.each([
    ['an id that is an object', '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}'],
    ['an id that is an array', '{"jsonrpc":"2.0","id":[1],"method":"ping"}'],
    ['an id that is a boolean', '{"jsonrpc":"2.0","id":true,"method":"ping"}'],
    ['params that are an array', '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}'],
    ['params that are a string', '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":"x"}'],
    ['a body nested 10,000 levels deep', `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`],
    ['an id that is null (MCP requests never carry null)', '{"jsonrpc":"2.0","id":null,"method":"ping"}'],
    ['an id that is a fraction', '{"jsonrpc":"2.0","id":1.5,"method":"ping"}'],
    ['a request with a result member too', '{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}'],
    ['a method named __proto__ with an extra member', '{"jsonrpc":"2.0","id":1,"method":"__proto__","params":{},"extra":1}'],
  ])('%s is 400 -32600, not a parse error', async (_what, body) => {
    const answer = await rpc(body);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.code).toBe(-32600);
    expect(answer.body.id).toBeNull();
  });

  test.each([
    ['a tool name that is a number', '{"name":42,"arguments":{}}'],
    ['a missing tool name', '{"arguments":{}}'],
    ['arguments that are an array', '{"name":"svc_list_repos","arguments":[]}'],
    ['arguments that are a string', '{"name":"svc_list_repos","arguments":"all"}'],
  ])('tools/call with %s is 200 -32602 naming the field, never -32603 or a validator dump', async (_what, params) => {
    const answer = await rpc(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":${params}}`);
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe(7);
    expect(answer.body.error?.code).toBe(-32602);
    expect(answer.body.error?.message).toMatch(/^Invalid params: params\.(name|arguments) /);
    expect(answer.body.error?.message).not.toMatch(/[[{]/);
  });

  test('a method named __proto__ or toString is an unknown method, 200 -32601', async () => {
    for (const method of ['__proto__', 'toString', 'constructor']) {
      const answer = await rpc(`{"jsonrpc":"2.0","id":3,"method":"${method}","params":{}}`);
      expect([answer.status, answer.body.error?.code]).toEqual([200, -32601]);
    }
  });

  test('a __proto__ key in tool arguments is 200 -32602, never a prototype the argument check cannot see', async () => {
    const answer = await rpc('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"svc_list_agents","arguments":{"__proto__":{"isAdmin":true}}}}');
    expect(answer.status).toBe(200);
    expect(answer.body.error).toEqual({ code: -32602, message: 'Invalid params: params.arguments.__proto__ is not an allowed key' });
  });

  test('a body that is not application/json is 400 -32600 (the table has no 415)', async () => {
    const token = await freshToken();
    const response = await fetch(`${suite.api}/mcp`, {
      method: 'POST',
      headers: { ...bearer(token.token), 'content-type': 'text/plain', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32600);
  });

  test('initialize with a protocolVersion that is not a string is 200 -32602', async () => {
    const answer = await rpc(
      '{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":1,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}',
    );
    expect(answer.status).toBe(200);
    expect(answer.body.error?.code).toBe(-32602);
    expect(answer.body.error?.message).toMatch(/^Invalid params: params\.protocolVersion /);
  });
});
