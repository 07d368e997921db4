import Koa, { type Context } from 'koa';
import type { Logger } from '@ars/logger';
import { counter, histogram, metricsText } from '@ars/metrics';
import { errorEnvelope } from './errors.js';
import { requestIdAndAccessLog, type RequestObserver } from './requestId.js';

/** Where Prometheus scrapes a service: on its metrics listener (`createMetricsApp`), never its API's port (README, "Metrics"). */
export const METRICS_PATH = '/metrics';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const PROBES = new Set(['/healthz', '/readyz']);

/**
 * The route label: the router's matched template (`/internal/runs/:runId`, prefix included), never
 * the path with its ids. A probe is its own path; anything no router matched is `unmatched` — so a
 * scan of random paths adds one series, not one per path.
 */
export function routeLabel(ctx: Context): string {
  const matched = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
  if (matched !== undefined) return String(matched);
  if (PROBES.has(ctx.path)) return ctx.path;
  return 'unmatched';
}

/** The metric children of one (method, route, status): what a request updates, labelled once. */
interface RequestSeries {
  requests: { inc(): void };
  durations: { observe(seconds: number): void };
}

/**
 * Every request of the API's app counted: `ars_http_requests_total` and
 * `ars_http_request_duration_seconds` by method and route (status on the counter). Called by the
 * request-id layer once the request is answered (a layer of its own was one more async frame, with
 * its promises and their hooks, on every request: issue 33), so the status counted is the one the
 * error envelope answered. The registry itself is served on the metrics listener
 * (`createMetricsApp`), whose scrapes are not counted. The labelled children are kept per (method,
 * route, status): building and checking the label objects of both metrics on every request was
 * about 2 % of a service's CPU (issue 33). The keys are as bounded as the series.
 */
export function httpMetrics(): RequestObserver {
  const requests = counter({
    name: 'ars_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'],
  });
  const durations = histogram({
    name: 'ars_http_request_duration_seconds',
    help: 'Time to answer an HTTP request (until the handler returned; a stream counts until its headers), by method and route template.',
    labelNames: ['method', 'route'],
  });
  const seriesByKey = new Map<string, RequestSeries>();
  const seriesOf = (method: string, route: string, status: string): RequestSeries => {
    const key = `${method} ${status} ${route}`;
    let series = seriesByKey.get(key);
    if (series === undefined) {
      series = { requests: requests.labels({ method, route, status }), durations: durations.labels({ method, route }) };
      seriesByKey.set(key, series);
    }
    return series;
  };
  return (ctx, seconds) => {
    const series = seriesOf(METHODS.has(ctx.method) ? ctx.method : 'other', routeLabel(ctx), String(ctx.status));
    series.durations.observe(seconds);
    series.requests.inc();
  };
}

/**
 * The app of a service's metrics listener: `GET /metrics` answers the process's registry in the
 * Prometheus text format, unauthenticated (Prometheus scrapes it; it holds no user data); anything else
 * is 404 NOT_FOUND in the envelope. It listens on a port of its own (`METRICS_HOST`/`METRICS_PORT`,
 * loopback by default), so the API's port, the one clients reach, never serves it.
 */
export function createMetricsApp(options: { logger: Logger }): Koa {
  const app = new Koa();
  app.silent = true;
  app.on('error', (error: unknown) => options.logger.error({ err: error }, 'koa error'));
  app.use(requestIdAndAccessLog(options.logger));
  app.use(errorEnvelope());
  app.use(async (ctx, next) => {
    if (ctx.path !== METRICS_PATH || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const { contentType, body } = await metricsText();
    ctx.set('Content-Type', contentType);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = body;
  });
  return app;
}
