import { AppError } from '@ars/errors';
import { createLogger } from '@ars/logger';
import { parseMetricsText, registry, sumOf, type Scrape } from '@ars/metrics';
import { createHttpApp, createMetricsApp, mountRouters, ok, Router, startHttpServer, type RunningServer } from '@ars/http-app';

const logger = createLogger({ service: 'test', destination: { write: () => undefined } });
let server: RunningServer | undefined;
/** The metrics listener, a server of its own beside the API's. */
let metricsServer: RunningServer | undefined;

async function start(options: { metrics?: boolean } = { metrics: true }): Promise<string> {
  const app = createHttpApp({ service: 'test', logger, ...options });
  const router = new Router({ prefix: '/internal/users/:userId' });
  router.get('/things/:thingId', (ctx) => ok(ctx, { id: ctx.params.thingId }));
  router.get('/refused', () => {
    throw AppError.rateLimited();
  });
  router.get('/crash', () => {
    throw new Error('boom');
  });
  mountRouters(app, router);
  server = await startHttpServer(app, { port: 0 });
  metricsServer = await startHttpServer(createMetricsApp({ logger }), { port: 0 });
  return server.url;
}

/** `GET /metrics` of the metrics listener, as Prometheus scrapes it. */
async function scrape(): Promise<Scrape> {
  const response = await fetch(`${metricsServer?.url ?? 'http://metrics-listener-not-started'}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain; version=0.0.4');
  return parseMetricsText(await response.text());
}

const requests = (scraped: Scrape, labels: Record<string, string>) => sumOf(scraped, 'ars_http_requests_total', labels);

beforeEach(() => registry.resetMetrics());
afterEach(async () => {
  await server?.close();
  await metricsServer?.close();
  server = undefined;
  metricsServer = undefined;
});

describe('GET /metrics answers the registry in the Prometheus text format, without authentication, on the metrics listener only', () => {
  test('the metrics listener serves it; HEAD too', async () => {
    await start();
    const scraped = await scrape();
    expect(scraped.types.get('ars_http_requests_total')).toBe('counter');
    const head = await fetch(`${metricsServer?.url}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toContain('text/plain; version=0.0.4');
  });
  test("the API's port never serves it, with or without the metrics option: 404 NOT_FOUND in the envelope", async () => {
    for (const options of [{ metrics: true }, {}]) {
      const url = await start(options);
      const response = await fetch(`${url}/metrics`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'No route for GET /metrics' } });
      await server?.close();
      await metricsServer?.close();
    }
  });
  test('anything else on the metrics listener is 404 NOT_FOUND in the envelope, a write method included', async () => {
    await start();
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/healthz'],
      ['POST', '/metrics'],
    ] as const) {
      const response = await fetch(`${metricsServer?.url}${path}`, { method });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: `No route for ${method} ${path}` } });
    }
  });
});

describe('requests are counted by the matched route template, never the raw path with its ids', () => {
  test('two users and two things: one series, the template with the prefix', async () => {
    const url = await start();
    await fetch(`${url}/internal/users/u1/things/a`);
    await fetch(`${url}/internal/users/u2/things/b`);
    const scraped = await scrape();
    expect(requests(scraped, { method: 'GET', route: '/internal/users/:userId/things/:thingId', status: '200' })).toBe(2);
    const routes = scraped.samples.filter((s) => s.name === 'ars_http_requests_total').map((s) => s.labels.route);
    expect(routes.join(' ')).not.toMatch(/u1|u2|\/a\b|\/b\b/);
    expect(sumOf(scraped, 'ars_http_request_duration_seconds_count', { method: 'GET', route: '/internal/users/:userId/things/:thingId' })).toBe(2);
  });
  test('paths no router matched are one series, unmatched; probes are their path', async () => {
    const url = await start();
    for (const path of ['/nope/1', '/nope/2', '/wp-admin.php']) expect((await fetch(`${url}${path}`)).status).toBe(404);
    await fetch(`${url}/healthz`);
    const scraped = await scrape();
    expect(requests(scraped, { route: 'unmatched', status: '404' })).toBe(3);
    expect(requests(scraped, { route: '/healthz', status: '200' })).toBe(1);
  });
  test('an unknown method is counted as other (a bounded label)', async () => {
    const url = await start();
    await fetch(`${url}/internal/users/u1/things/a`, { method: 'PROPFIND' });
    expect(requests(await scrape(), { method: 'other' })).toBe(1);
  });
});

describe('the status counted is the one answered, after errors are mapped to the envelope', () => {
  test('a thrown AppError counts as its status; an unknown error as 500', async () => {
    const url = await start();
    expect((await fetch(`${url}/internal/users/u1/refused`)).status).toBe(429);
    expect((await fetch(`${url}/internal/users/u1/crash`)).status).toBe(500);
    const scraped = await scrape();
    expect(requests(scraped, { route: '/internal/users/:userId/refused', status: '429' })).toBe(1);
    expect(requests(scraped, { route: '/internal/users/:userId/crash', status: '500' })).toBe(1);
  });
});

describe('scrapes are not counted in the HTTP metrics', () => {
  test('three scrapes: no series for /metrics', async () => {
    await start();
    await scrape();
    await scrape();
    const scraped = await scrape();
    expect(scraped.samples.filter((s) => s.name.startsWith('ars_http_') && s.labels.route !== undefined && s.labels.route.includes('metrics'))).toEqual([]);
    expect(requests(scraped, {})).toBe(0);
  });
});
