import { AppError } from '@ars/errors';
import { createLogger } from '@ars/logger';
import { parseMetricsText, registry, sumOf, type Scrape } from '@ars/metrics';
import { createHttpApp, mountRouters, ok, Router, startHttpServer, type RunningServer } from '@ars/http-app';

let server: RunningServer | undefined;

async function start(options: { metrics?: boolean } = { metrics: true }): Promise<string> {
  const app = createHttpApp({ service: 'test', logger: createLogger({ service: 'test', destination: { write: () => undefined } }), ...options });
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
  return server.url;
}

async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain; version=0.0.4');
  return parseMetricsText(await response.text());
}

const requests = (scraped: Scrape, labels: Record<string, string>) => sumOf(scraped, 'ars_http_requests_total', labels);

beforeEach(() => registry.resetMetrics());
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('GET /metrics answers the registry in the Prometheus text format, without authentication', () => {
  test('served by the app itself, before any router; absent without the metrics option', async () => {
    const url = await start();
    const scraped = await scrape(url);
    expect(scraped.types.get('ars_http_requests_total')).toBe('counter');
    await server?.close();
    const plain = await start({});
    expect((await fetch(`${plain}/metrics`)).status).toBe(404);
  });
});

describe('requests are counted by the matched route template, never the raw path with its ids', () => {
  test('two users and two things: one series, the template with the prefix', async () => {
    const url = await start();
    await fetch(`${url}/internal/users/u1/things/a`);
    await fetch(`${url}/internal/users/u2/things/b`);
    const scraped = await scrape(url);
    expect(requests(scraped, { method: 'GET', route: '/internal/users/:userId/things/:thingId', status: '200' })).toBe(2);
    const routes = scraped.samples.filter((s) => s.name === 'ars_http_requests_total').map((s) => s.labels.route);
    expect(routes.join(' ')).not.toMatch(/u1|u2|\/a\b|\/b\b/);
    expect(sumOf(scraped, 'ars_http_request_duration_seconds_count', { method: 'GET', route: '/internal/users/:userId/things/:thingId' })).toBe(2);
  });
  test('paths no router matched are one series, unmatched; probes are their path', async () => {
    const url = await start();
    for (const path of ['/nope/1', '/nope/2', '/wp-admin.php']) expect((await fetch(`${url}${path}`)).status).toBe(404);
    await fetch(`${url}/healthz`);
    const scraped = await scrape(url);
    expect(requests(scraped, { route: 'unmatched', status: '404' })).toBe(3);
    expect(requests(scraped, { route: '/healthz', status: '200' })).toBe(1);
  });
  test('an unknown method is counted as other (a bounded label)', async () => {
    const url = await start();
    await fetch(`${url}/internal/users/u1/things/a`, { method: 'PROPFIND' });
    expect(requests(await scrape(url), { method: 'other' })).toBe(1);
  });
});

describe('the status counted is the one answered, after errors are mapped to the envelope', () => {
  test('a thrown AppError counts as its status; an unknown error as 500', async () => {
    const url = await start();
    expect((await fetch(`${url}/internal/users/u1/refused`)).status).toBe(429);
    expect((await fetch(`${url}/internal/users/u1/crash`)).status).toBe(500);
    const scraped = await scrape(url);
    expect(requests(scraped, { route: '/internal/users/:userId/refused', status: '429' })).toBe(1);
    expect(requests(scraped, { route: '/internal/users/:userId/crash', status: '500' })).toBe(1);
  });
});

describe('scrapes are not counted in the HTTP metrics', () => {
  test('three scrapes: no series for /metrics', async () => {
    const url = await start();
    await scrape(url);
    await scrape(url);
    const scraped = await scrape(url);
    expect(scraped.samples.filter((s) => s.name.startsWith('ars_http_') && s.labels.route !== undefined && s.labels.route.includes('metrics'))).toEqual([]);
    expect(requests(scraped, {})).toBe(0);
  });
});
