// What the kit does per request costs only what the request needs (issue 33): the child logger is
// made when a line is written, the metric children are labelled once, and the health and body
// layers pass other requests straight on — with every answer, log line and series as before.
import { jest } from '@jest/globals';
import type { Context, Next } from 'koa';
import { createLogger, REDACTED, type Logger } from '@ars/logger';
import { metricsText, parseMetricsText, registry, sumOf, type Counter, type Histogram } from '@ars/metrics';
import { createHttpApp, currentRequest, mountRouters, ok, Router, startHttpServer, type RunningServer } from '@ars/http-app';
import { healthRoutes } from './health.js';
import { jsonBody } from './body.js';

const SECRET = 'tok_SECRETSECRETSECRETSECRETSECRET12';

function capture() {
  const lines: string[] = [];
  return { destination: { write: (line: string) => void lines.push(line) }, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

let server: RunningServer | undefined;

async function start(logger: Logger, options: { metrics?: boolean } = {}): Promise<string> {
  const app = createHttpApp({ service: 'test', logger, ...options });
  const router = new Router();
  router.get('/quiet', (ctx) => ok(ctx, { requestId: currentRequest()?.requestId }));
  router.get('/things/:id', (ctx) => ok(ctx, { id: ctx.params.id }));
  router.get('/chatty', (ctx) => {
    ctx.state.logger.warn({ headers: { authorization: `Bearer ${SECRET}` }, token: SECRET }, 'chatty');
    currentRequest()?.logger.warn('from the request context');
    ok(ctx, {});
  });
  mountRouters(app, router);
  server = await startHttpServer(app, { port: 0 });
  return server.url;
}

afterEach(async () => {
  await server?.close();
  server = undefined;
  jest.restoreAllMocks();
});

describe('the per-request child logger is created lazily, only when a line is actually written', () => {
  test('a request that logs nothing creates no child logger', async () => {
    const out = capture();
    const logger = createLogger({ service: 'test', level: 'warn', destination: out.destination });
    const child = jest.spyOn(logger, 'child');
    const url = await start(logger);
    const response = await fetch(`${url}/quiet`, { headers: { 'X-Request-Id': 'req-quiet' } });
    expect(await response.json()).toEqual({ ok: true, data: { requestId: 'req-quiet' } });
    expect(child).not.toHaveBeenCalled();
    expect(out.records()).toEqual([]);
  });

  test('a logged line still carries the request id and its secrets are redacted', async () => {
    const out = capture();
    const logger = createLogger({ service: 'test', level: 'warn', destination: out.destination });
    const child = jest.spyOn(logger, 'child');
    const url = await start(logger);
    await (await fetch(`${url}/chatty`, { headers: { 'X-Request-Id': 'req-chatty' } })).arrayBuffer();
    const records = out.records();
    expect(records.map((r) => [r.msg, r.request_id])).toEqual([
      ['chatty', 'req-chatty'],
      ['from the request context', 'req-chatty'],
    ]);
    expect(records[0]).toMatchObject({ token: REDACTED, headers: { authorization: REDACTED } });
    expect(JSON.stringify(records)).not.toContain(SECRET);
    // One child for the request, shared by ctx.state.logger and currentRequest().logger.
    expect(child).toHaveBeenCalledTimes(1);
  });

  test('the access line keeps its fields, request id first among them, at info', async () => {
    const out = capture();
    const url = await start(createLogger({ service: 'test', destination: out.destination }));
    await (await fetch(`${url}/things/7?secret=${SECRET}`, { headers: { 'X-Request-Id': 'req-7' } })).arrayBuffer();
    const [line] = out.records();
    expect(Object.keys(line ?? {})).toEqual(['level', 'time', 'service', 'request_id', 'method', 'path', 'status', 'duration_ms', 'msg']);
    expect(line).toMatchObject({ level: 'info', request_id: 'req-7', method: 'GET', path: '/things/7', status: 200, msg: 'request' });
  });
});

describe('the labelled metric children are cached per (method, route, status)', () => {
  test('metric children reused: labelled once for three requests, all three counted and timed', async () => {
    const url = await start(createLogger({ service: 'test', level: 'silent' }), { metrics: true });
    const requests = registry.getSingleMetric('ars_http_requests_total') as Counter<string>;
    const durations = registry.getSingleMetric('ars_http_request_duration_seconds') as Histogram<string>;
    const before = parseMetricsText((await metricsText()).body);
    const labelled = [jest.spyOn(requests, 'labels'), jest.spyOn(durations, 'labels')];
    for (const id of ['1', '2', '3']) await (await fetch(`${url}/things/${id}`)).arrayBuffer();
    await (await fetch(`${url}/nowhere`)).arrayBuffer();
    for (const spy of labelled) expect(spy).toHaveBeenCalledTimes(2); // /things/:id 200 and unmatched 404
    const after = parseMetricsText((await metricsText()).body);
    const counted = (scrape: typeof after, name: string, labels: Record<string, string>) => sumOf(scrape, name, labels);
    const series = { method: 'GET', route: '/things/:id' };
    expect(
      counted(after, 'ars_http_requests_total', { ...series, status: '200' }) - counted(before, 'ars_http_requests_total', { ...series, status: '200' }),
    ).toBe(3);
    expect(counted(after, 'ars_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(counted(after, 'ars_http_request_duration_seconds_count', series) - counted(before, 'ars_http_request_duration_seconds_count', series)).toBe(3);
  });
});

describe('the health and body layers skip what a request cannot need', () => {
  const context = (method: string, path: string) => ({ method, path }) as unknown as Context;
  const passedOn = Promise.resolve();
  const next: Next = () => passedOn;

  test('the health layer on a non-health path is the next layer itself', () => {
    expect(healthRoutes('test')(context('GET', '/things/1'), next)).toBe(passedOn);
  });
  test.each(['GET', 'HEAD', 'OPTIONS'])('the body layer on a %s is the next layer itself', (method) => {
    expect(jsonBody()(context(method, '/things'), next)).toBe(passedOn);
  });
  test('answers stay: a GET of another content type is not refused, a POST with one is', async () => {
    const url = await start(createLogger({ service: 'test', level: 'silent' }));
    const get = await fetch(`${url}/quiet`, { headers: { 'content-type': 'text/plain' } });
    expect(get.status).toBe(200);
    await get.arrayBuffer();
    const post = await fetch(`${url}/quiet`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(await post.json()).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: 'Content-Type must be application/json' } });
    const health = await fetch(`${url}/healthz`);
    expect(await health.json()).toEqual({ ok: true, data: { status: 'alive', service: 'test' } });
  });
});
