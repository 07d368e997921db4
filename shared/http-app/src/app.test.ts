import { AppError } from '@ars/errors';
import { createLogger } from '@ars/logger';
import {
  createHttpApp,
  mountRouters,
  ok,
  Router,
  runReadinessChecks,
  startHttpServer,
  currentRequest,
  readRawBody,
  requestBody,
  type HttpAppOptions,
  type RunningServer,
} from '@ars/http-app';

function capture() {
  const lines: string[] = [];
  return { destination: { write: (line: string) => void lines.push(line) }, lines, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

let server: RunningServer | undefined;
let logs = capture();

async function start(routers: Router[], options: Partial<HttpAppOptions> = {}): Promise<string> {
  logs = capture();
  const app = createHttpApp({ service: 'test', logger: createLogger({ service: 'test', destination: logs.destination }), ...options });
  mountRouters(app, ...routers);
  server = await startHttpServer(app, { port: 0 });
  return server.url;
}

afterEach(async () => {
  await server?.close();
  server = undefined;
});

function routes(): Router {
  const router = new Router();
  router.get('/things/:id', (ctx) => ok(ctx, { id: ctx.params.id, requestId: currentRequest()?.requestId }));
  router.post('/things', (ctx) => ok(ctx, { received: requestBody(ctx) }, 201));
  router.get('/limited', () => {
    throw AppError.rateLimited();
  });
  router.get('/crash', (ctx) => {
    ctx.set('X-Leaky', 'yes');
    throw new Error('db password is hunter2');
  });
  return router;
}

describe('X-Request-Id is taken from the request when sane, else generated, and set on every response', () => {
  test('a sane incoming id is echoed and visible to the handler', async () => {
    const url = await start([routes()]);
    const response = await fetch(`${url}/things/1`, { headers: { 'X-Request-Id': 'abc-123_x.y:z' } });
    expect(response.headers.get('x-request-id')).toBe('abc-123_x.y:z');
    expect(await response.json()).toEqual({ ok: true, data: { id: '1', requestId: 'abc-123_x.y:z' } });
  });
  test('a missing id is generated', async () => {
    const url = await start([routes()]);
    const response = await fetch(`${url}/things/1`);
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
  test.each([
    ['with spaces', 'a b c'],
    ['too long', 'x'.repeat(200)],
    ['log injection', 'a\\nb"c'],
  ])('an insane id (%s) is replaced', async (_what, bad) => {
    const url = await start([routes()]);
    const response = await fetch(`${url}/things/1`, { headers: { 'X-Request-Id': bad } });
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
  test('errors and 404s carry the id too', async () => {
    const url = await start([routes()]);
    for (const path of ['/crash', '/limited', '/nowhere']) {
      const response = await fetch(`${url}${path}`, { headers: { 'X-Request-Id': 'req-42' } });
      expect(response.headers.get('x-request-id')).toBe('req-42');
      await response.arrayBuffer();
    }
  });
});

describe('one access-log line per request, with the request id', () => {
  test('method, path, status and duration are logged once', async () => {
    const url = await start([routes()]);
    await (await fetch(`${url}/things/7?secret=1`, { headers: { 'X-Request-Id': 'log-1' } })).arrayBuffer();
    const access = logs.records().filter((r) => r.msg === 'request');
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({ request_id: 'log-1', method: 'GET', path: '/things/7', status: 200, service: 'test' });
    expect(typeof access[0]?.duration_ms).toBe('number');
    expect(logs.lines.join('')).not.toContain('secret=1');
  });
  test('an error answer logs its code on the access line', async () => {
    const url = await start([routes()]);
    await (await fetch(`${url}/limited`)).arrayBuffer();
    expect(logs.records().find((r) => r.msg === 'request')).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
  });
});

describe('credentials sent with a request never reach the logs', () => {
  test('Authorization, Cookie and X-Internal-Token of a failing request', async () => {
    const url = await start([routes()]);
    const secret = 'tok_0123456789abcdefghijklmnopqrstuv';
    const response = await fetch(`${url}/crash`, {
      headers: { Authorization: `Bearer ${secret}`, Cookie: `session=${secret}`, 'X-Internal-Token': secret },
    });
    await response.arrayBuffer();
    expect(logs.lines.length).toBeGreaterThan(0);
    expect(logs.lines.join('')).not.toContain(secret);
  });
});

describe('every thrown error becomes the failure envelope with the status of its code', () => {
  test('an AppError keeps its code, message and headers', async () => {
    const url = await start([routes()]);
    const response = await fetch(`${url}/limited`);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('60');
    expect(await response.json()).toEqual({ ok: false, error: { code: 'RATE_LIMITED', message: 'Rate limit exceeded; retry after 60 seconds' } });
  });
  test('an unknown error is 500 INTERNAL_ERROR with a fixed message, no stack, logged with its stack and request id', async () => {
    const url = await start([routes()]);
    const response = await fetch(`${url}/crash`, { headers: { 'X-Request-Id': 'crash-1' } });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ ok: false, error: { code: 'INTERNAL_ERROR', message: 'Internal server error' } });
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('at ');
    expect(response.headers.get('x-leaky')).toBeNull();
    const logged = logs.records().find((r) => r.msg === 'unhandled error');
    expect(logged).toMatchObject({ level: 'error', request_id: 'crash-1' });
    expect((logged?.err as { stack: string }).stack).toContain('hunter2');
  });
});

describe('JSON bodies are parsed with a size limit; bad bodies are 400 BAD_REQUEST', () => {
  const post = (url: string, body: string, contentType = 'application/json') =>
    fetch(`${url}/things`, { method: 'POST', headers: { 'Content-Type': contentType }, body });

  test('a JSON body reaches the route', async () => {
    const url = await start([routes()]);
    const response = await post(url, '{"name":"x"}');
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ ok: true, data: { received: { name: 'x' } } });
  });
  test('malformed JSON is 400 "Malformed JSON body"', async () => {
    const url = await start([routes()]);
    const response = await post(url, '{"name":');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: 'Malformed JSON body' } });
  });
  test('an oversized body is 400 naming the limit (the contract has no 413)', async () => {
    const url = await start([routes()], { bodyLimit: '1kb' });
    const response = await post(url, JSON.stringify({ pad: 'x'.repeat(5000) }));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: 'Request body exceeds the 1kb limit' } });
  });
  test('a body of another content type is 400', async () => {
    const url = await start([routes()]);
    const response = await post(url, 'name=x', 'application/x-www-form-urlencoded');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: 'Content-Type must be application/json' } });
  });
  test('a POST without a body is accepted (routes like cancel take none)', async () => {
    const url = await start([routes()]);
    const response = await fetch(`${url}/things`, { method: 'POST' });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ ok: true, data: { received: {} } });
  });
});

describe('routes with their own body handling can skip the JSON parser and read the raw body', () => {
  function rpc(): Router {
    const router = new Router();
    router.post('/rpc', async (ctx) => {
      const text = await readRawBody(ctx, '64b');
      try {
        ctx.body = { parsed: JSON.parse(text) as unknown };
      } catch {
        ctx.status = 400;
        ctx.body = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
      }
    });
    return router;
  }
  const skipBodyParsing = (ctx: { path: string }) => ctx.path === '/rpc';
  test('malformed JSON reaches the route, which answers in its own envelope', async () => {
    const url = await start([rpc()], { skipBodyParsing });
    const response = await fetch(`${url}/rpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{oops' });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  });
  test('a valid body is read as text', async () => {
    const url = await start([rpc()], { skipBodyParsing });
    const response = await fetch(`${url}/rpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(await response.json()).toEqual({ parsed: { a: 1 } });
  });
  test('readRawBody still enforces its limit', async () => {
    const url = await start([rpc()], { skipBodyParsing });
    const response = await fetch(`${url}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(100) }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: 'Request body exceeds the 64b limit' } });
  });
});

describe('/healthz answers 200 while alive; /readyz 200 only when every check passes', () => {
  test('healthz', async () => {
    const url = await start([]);
    const response = await fetch(`${url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, data: { status: 'alive', service: 'test' } });
  });
  test('readyz is 200 when all checks pass', async () => {
    const url = await start([], { readiness: () => runReadinessChecks({ mongo: async () => undefined, bus: async () => true }) });
    const response = await fetch(`${url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, data: { status: 'ready', service: 'test', checks: { mongo: { ok: true }, bus: { ok: true } } } });
  });
  test('readyz is 503 naming the failed check', async () => {
    const readiness = () =>
      runReadinessChecks({
        mongo: async () => {
          throw new Error('connection refused');
        },
        bus: async () => false,
        redis: async () => undefined,
      });
    const url = await start([], { readiness });
    const response = await fetch(`${url}/readyz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      ok: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: 'Not ready: mongo (connection refused), bus (not ready)' },
    });
  });
  test('a check that never answers fails at its deadline', async () => {
    const report = await runReadinessChecks({ stuck: () => new Promise<void>(() => undefined) }, { timeoutMs: 20 });
    expect(report).toEqual({ ready: false, checks: { stuck: { ok: false, error: 'no answer within 20 ms' } } });
  });
});

describe('/healthz and /readyz answer the instance id the process was started with in X-Ars-Instance', () => {
  test('every answer of both carries it, a failed readiness too', async () => {
    let ready = true;
    const url = await start([], { instance: 'inst-1', readiness: () => runReadinessChecks({ mongo: async () => ready }) });
    for (const path of ['/healthz', '/readyz']) {
      const response = await fetch(`${url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ars-instance')).toBe('inst-1');
    }
    ready = false;
    const notReady = await fetch(`${url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(notReady.headers.get('x-ars-instance')).toBe('inst-1');
  });

  test('without an instance id no such header is sent, and other routes never carry it', async () => {
    const bare = await start([]);
    expect((await fetch(`${bare}/healthz`)).headers.get('x-ars-instance')).toBeNull();
    await server?.close();
    const url = await start([routes()], { instance: 'inst-2' });
    expect((await fetch(`${url}/things/1`)).headers.get('x-ars-instance')).toBeNull();
  });
});

describe('unknown routes are 404 NOT_FOUND naming the method and path; so is a wrong method, with Allow', () => {
  test('404 envelope', async () => {
    const url = await start([routes()]);
    const response = await fetch(`${url}/nowhere/else`, { method: 'DELETE' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'No route for DELETE /nowhere/else' } });
  });
  test('a wrong method on a known path is 404 with Allow, in the envelope (the contract has no 405 code)', async () => {
    const url = await start([routes()]);
    const response = await fetch(`${url}/things/1`, { method: 'DELETE' });
    expect(response.status).toBe(404);
    expect(response.headers.get('allow')).toBe('HEAD, GET');
    expect(await response.json()).toEqual({
      ok: false,
      error: { code: 'NOT_FOUND', message: 'No route for DELETE /things/1 (allowed: HEAD, GET)' },
    });
  });
  test('several routers mount side by side', async () => {
    const other = new Router({ prefix: '/other' });
    other.get('/', (ctx) => ok(ctx, 'other'));
    const url = await start([routes(), other]);
    expect(await (await fetch(`${url}/other`)).json()).toEqual({ ok: true, data: 'other' });
    expect((await fetch(`${url}/things/1`)).status).toBe(200);
  });
});

describe('an idle keep-alive connection is kept open far longer than any client reuses it', () => {
  test('every answer advertises Keep-Alive: timeout=65; the server closes idle sockets after 65 s', async () => {
    const url = await start([]);
    const answer = await fetch(`${url}/healthz`);
    expect(answer.headers.get('keep-alive')).toBe('timeout=65');
    expect(server?.server.keepAliveTimeout).toBe(65_000);
  });
  test('by default a client has 10 s for its headers and 30 s for its whole request, checked every second (serverEdges.security.test.ts shows each)', async () => {
    await start([]);
    expect(server?.server.headersTimeout).toBe(10_000);
    expect(server?.server.requestTimeout).toBe(30_000);
    // Not in @types/node: what createServer kept of its options.
    const kept = server?.server as { connectionsCheckingInterval?: number; maxHeaderSize?: number } | undefined;
    expect(kept?.connectionsCheckingInterval).toBe(1_000);
    expect(kept?.maxHeaderSize).toBe(16_384);
  });
});
