import { createServer as createRawServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { AppError } from '@ars/errors';
import { createHttpApp, mountRouters, ok, requestBody, requireInternalCaller, Router, startHttpServer, type RunningServer } from '@ars/http-app';
import { createHttpClient, type HttpClient } from '@ars/http-client';
import { createLogger } from '@ars/logger';
import { shutdownTelemetry, startTelemetry } from '@ars/telemetry';
import { freePort } from '@ars/testenv';

const logger = createLogger({ service: 'http-client-test', level: 'silent' });
const TOKEN = 'internal-token-0123456789';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

interface Seen {
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  query: Record<string, unknown>;
}

/** A peer service (an http-app) whose routes record what they received. */
async function startPeer(): Promise<{ url: string; seen: Seen[]; releaseSlow: () => void }> {
  const seen: Seen[] = [];
  let releaseSlow: () => void = () => undefined;
  const slow = new Promise<void>((resolve) => (releaseSlow = resolve));
  const router = new Router({ prefix: '/internal' });
  router.use(requireInternalCaller(TOKEN));
  router.use(async (ctx, next) => {
    await next();
    seen.push({ headers: ctx.headers, body: requestBody(ctx), query: { ...ctx.query } });
  });
  router.get('/things/:id', (ctx) => ok(ctx, { id: ctx.params.id, caller: ctx.state.caller, requestId: ctx.state.requestId }));
  router.post('/things', (ctx) => ok(ctx, { created: requestBody(ctx) }, 201));
  router.put('/things/:id', (ctx) => ok(ctx, { replaced: ctx.params.id }));
  router.delete('/things/:id', (ctx) => ok(ctx, { deleted: ctx.params.id }));
  router.get('/conflict', () => {
    throw AppError.conflict('Sandbox is unreachable');
  });
  router.get('/limited', () => {
    throw AppError.rateLimited();
  });
  router.get('/slow', async (ctx) => {
    await slow;
    ok(ctx, 'late');
  });
  const app = mountRouters(createHttpApp({ service: 'peer', logger }), router);
  const server = await startHttpServer(app);
  closers.push(async () => {
    releaseSlow();
    await server.close();
  });
  return { url: server.url, seen, releaseSlow };
}

function client(baseUrl: string, extra: Partial<Parameters<typeof createHttpClient>[0]> = {}): HttpClient {
  const created = createHttpClient({ baseUrl, caller: 'gateway', internalToken: TOKEN, timeoutMs: 2_000, logger, ...extra });
  closers.push(() => created.close());
  return created;
}

async function startRaw(status: number, body: string, contentType = 'text/html'): Promise<string> {
  const server: Server = createRawServer((_req, res) => res.writeHead(status, { 'content-type': contentType }).end(body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('get/post/put/delete return the data of the success envelope', () => {
  test('each method, with a path prefix in the base URL, a query and a JSON body', async () => {
    const peer = await startPeer();
    const runs = client(`${peer.url}/internal`);
    expect(await runs.get('/things/1', { query: { limit: 5, tags: ['a', 'b'], none: undefined } })).toEqual({
      id: '1',
      caller: 'gateway',
      requestId: expect.any(String),
    });
    expect(peer.seen[0]?.query).toEqual({ limit: '5', tags: ['a', 'b'] });
    expect(await runs.post('/things', { name: 'x' })).toEqual({ created: { name: 'x' } });
    expect(await runs.put('/things/2', { name: 'y' })).toEqual({ replaced: '2' });
    expect(await runs.delete('/things/3')).toEqual({ deleted: '3' });
  });
});

describe('headers sent: X-Caller-Service, X-Internal-Token, X-Request-Id of the current request, traceparent', () => {
  test('caller and token', async () => {
    const peer = await startPeer();
    await client(`${peer.url}/internal`).get('/things/1');
    expect(peer.seen[0]?.headers['x-caller-service']).toBe('gateway');
    expect(peer.seen[0]?.headers['x-internal-token']).toBe(TOKEN);
  });

  test('the request id of the request being handled is propagated to the peer', async () => {
    const peer = await startPeer();
    const runs = client(`${peer.url}/internal`);
    const gatewayRouter = new Router();
    gatewayRouter.get('/api/things/:id', async (ctx) => ok(ctx, await runs.get(`/things/${ctx.params.id}`)));
    const gateway = await startHttpServer(mountRouters(createHttpApp({ service: 'gateway', logger }), gatewayRouter));
    closers.push(() => gateway.close());
    const response = await fetch(`${gateway.url}/api/things/9`, { headers: { 'X-Request-Id': 'req-propagated-1' } });
    expect(await response.json()).toEqual({ ok: true, data: { id: '9', caller: 'gateway', requestId: 'req-propagated-1' } });
    expect(peer.seen[0]?.headers['x-request-id']).toBe('req-propagated-1');
  });

  test('W3C traceparent carries the active span', async () => {
    const collector = await startRaw(200, '{}', 'application/json');
    startTelemetry({ serviceName: 'gateway', otlpEndpoint: collector, instrumentations: [] });
    closers.push(() => shutdownTelemetry());
    const peer = await startPeer();
    const runs = client(`${peer.url}/internal`);
    const traceId = await trace.getTracer('test').startActiveSpan('compose', async (span) => {
      await runs.get('/things/1');
      span.end();
      return span.spanContext().traceId;
    });
    expect(peer.seen[0]?.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-0[01]$`));
  });
});

describe("a peer's failure envelope becomes an AppError with the same code, message and status", () => {
  test('CONFLICT crosses the boundary intact', async () => {
    const peer = await startPeer();
    await expect(client(`${peer.url}/internal`).get('/conflict')).rejects.toMatchObject({
      name: 'AppError',
      code: 'CONFLICT',
      status: 409,
      message: 'Sandbox is unreachable',
    });
  });
  test('Retry-After survives', async () => {
    const peer = await startPeer();
    const error = await client(`${peer.url}/internal`)
      .get('/limited')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429, headers: { 'Retry-After': '60' } });
  });
  test('a gateway that does not catch it answers its own client with the same envelope', async () => {
    const peer = await startPeer();
    const runs = client(`${peer.url}/internal`);
    const gatewayRouter = new Router();
    gatewayRouter.get('/api/conflict', async (ctx) => ok(ctx, await runs.get('/conflict')));
    const gateway = await startHttpServer(mountRouters(createHttpApp({ service: 'gateway', logger }), gatewayRouter));
    closers.push(() => gateway.close());
    const response = await fetch(`${gateway.url}/api/conflict`);
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({ ok: false, error: { code: 'CONFLICT', message: 'Sandbox is unreachable' } });
  });
  test('a wrong internal token is UNAUTHORIZED from the peer', async () => {
    const peer = await startPeer();
    await expect(client(`${peer.url}/internal`, { internalToken: 'wrong-token-0123456789' }).get('/things/1')).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      status: 401,
    });
  });
});

describe('a peer that is down or misses the deadline is SERVICE_UNAVAILABLE', () => {
  test('connection refused', async () => {
    const port = await freePort(); // reserved for this process and served by nobody: refused
    await expect(client(`http://127.0.0.1:${port}`, { peer: 'runs' }).get('/x')).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
      message: 'runs is unreachable (connection refused)',
    });
  });
  test('a slow peer past the deadline', async () => {
    const peer = await startPeer();
    await expect(client(`${peer.url}/internal`, { timeoutMs: 200, peer: 'runs' }).get('/slow')).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: 'runs did not answer within 200 ms',
    });
  });
  test('a per-call deadline overrides the client default', async () => {
    const peer = await startPeer();
    await expect(client(`${peer.url}/internal`, { peer: 'runs' }).get('/slow', { timeoutMs: 100 })).rejects.toMatchObject({
      message: 'runs did not answer within 100 ms',
    });
  });
});

describe('a non-envelope error maps through codeForHttpStatus', () => {
  test.each([
    [502, 'SERVICE_UNAVAILABLE'],
    [503, 'SERVICE_UNAVAILABLE'],
    [500, 'INTERNAL_ERROR'],
    [404, 'NOT_FOUND'],
  ] as const)('HTTP %i without an envelope is %s', async (status, code) => {
    const url = await startRaw(status, '<html>proxy error</html>');
    await expect(client(url, { peer: 'proxy' }).get('/x')).rejects.toMatchObject({ code, message: `proxy answered HTTP ${status}` });
  });
  test('a 200 without an envelope is INTERNAL_ERROR', async () => {
    const url = await startRaw(200, '{"hello":"world"}', 'application/json');
    await expect(client(url, { peer: 'odd' }).get('/x')).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
  });
});

describe('keep-alive: calls reuse connections', () => {
  test('sequential calls do not open a connection each', async () => {
    const sockets = new Set<unknown>();
    const router = new Router();
    router.get('/ping', (ctx) => {
      sockets.add(ctx.req.socket);
      ok(ctx, 'pong');
    });
    const server: RunningServer = await startHttpServer(mountRouters(createHttpApp({ service: 'p', logger }), router));
    closers.push(() => server.close());
    const peer = client(server.url);
    for (let i = 0; i < 10; i += 1) expect(await peer.get('/ping')).toBe('pong');
    expect(sockets.size).toBeLessThan(10);
  });
});

describe("a body that cannot be serialised is the caller's 400, never the peer's 503", () => {
  const deep = (levels: number): unknown => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`);

  test('a body too deep for JSON.stringify is BAD_REQUEST, names no peer, and sends nothing', async () => {
    const peer = await startPeer();
    const failure = client(`${peer.url}/internal`, { peer: 'automations-engine' }).post('/things', deep(100_000));
    await expect(failure).rejects.toMatchObject({ code: 'BAD_REQUEST', status: 400, message: 'The request body cannot be sent: it nests too deeply' });
    await expect(failure).rejects.not.toMatchObject({ message: expect.stringContaining('automations-engine') });
    expect(peer.seen).toHaveLength(0);
  });

  test('a body JSON cannot hold (a BigInt) is BAD_REQUEST', async () => {
    const peer = await startPeer();
    await expect(client(`${peer.url}/internal`).post('/things', { count: 1n })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: 'The request body cannot be sent: it holds a value JSON cannot represent',
    });
  });
});
