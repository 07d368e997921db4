import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa, { type Context, type Middleware } from 'koa';
import type { Router } from '@koa/router';
import type { Logger } from '@ars/logger';
import './state.js';
import { requestIdAndAccessLog } from './requestId.js';
import { errorEnvelope } from './errors.js';
import { jsonBody, DEFAULT_BODY_LIMIT } from './body.js';
import { healthRoutes, type ReadinessReport } from './health.js';
import { httpMetrics } from './metrics.js';

export type HttpApp = Koa;

export interface HttpAppOptions {
  /** The service name (on `/healthz` and `/readyz`). */
  service: string;
  logger: Logger;
  /** Largest accepted JSON body, in `bytes` notation (`'1mb'`, `'100kb'`); default 1mb. */
  bodyLimit?: string;
  /** Dependency checks behind `/readyz`; without it the app is ready while it serves. */
  readiness?: () => Promise<ReadinessReport>;
  /** Answered in `X-Ars-Instance` on `/healthz` and `/readyz` (the process's `ARS_INSTANCE_ID`). */
  instance?: string;
  /**
   * Requests the JSON body parser leaves alone (no parsing, no content-type check): the route reads
   * the body itself with `readRawBody`, e.g. a JSON-RPC endpoint answering malformed JSON in its own envelope.
   */
  skipBodyParsing?: (ctx: Context) => boolean;
  /**
   * Serves `GET /metrics` (`@ars/metrics`' registry) and counts every other request by route
   * template, method and status (`runService` turns it on).
   */
  metrics?: boolean;
}

/**
 * A Koa app with, in order: request id + per-request logger + access log, metrics (option), error → envelope mapping
 * (404 for unknown routes and wrong methods), JSON body parsing with a size limit, `/healthz` and `/readyz`. Mount routes with
 * `mountRouters` (or plain `app.use`).
 */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const app = new Koa();
  app.silent = true;
  app.on('error', (error: unknown) => options.logger.error({ err: error }, 'koa error'));
  app.use(requestIdAndAccessLog(options.logger));
  if (options.metrics) app.use(httpMetrics());
  app.use(errorEnvelope());
  app.use(healthRoutes(options.service, options.readiness, options.instance));
  app.use(jsonBody(options.bodyLimit ?? DEFAULT_BODY_LIMIT, options.skipBodyParsing));
  return app;
}

/** A router of any state/context type: only its middleware is needed. */
export interface MountableRouter {
  routes(): Middleware<never, never>;
  allowedMethods(options?: object): Middleware<never, never>;
}

/**
 * Mounts `@koa/router` routers. A known path asked with an unsupported method answers 404 NOT_FOUND with
 * `Allow` and the failure envelope; unknown paths fall through to the 404 envelope.
 */
export function mountRouters(app: HttpApp, ...routers: readonly (Router | MountableRouter)[]): HttpApp {
  const [first] = routers;
  if (!first) return app;
  app.use(first.allowedMethods() as Middleware);
  for (const router of routers) app.use(router.routes() as Middleware);
  return app;
}

export interface RunningServer {
  server: Server;
  host: string;
  port: number;
  /** `http://host:port` */
  url: string;
  /** Stops accepting connections, lets in-flight requests finish, closes idle keep-alive sockets. */
  close(): Promise<void>;
}

/** How long the server keeps an idle keep-alive connection open (see startHttpServer). */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** Listens on `host:port` (port 0 picks a free one) and resolves once bound. */
export function startHttpServer(app: HttpApp, options: { host?: string; port?: number; keepAliveTimeoutMs?: number } = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const httpServer = app.listen({ host, port: options.port ?? 0 });
    // An idle keep-alive connection is closed by the server only long after any client stops reusing
    // it. Clients (undici: fetch, @ars/http-client) reuse a socket until the advertised timeout minus
    // a margin, checked with coarse timers; with Node's 5 s a CPU-starved client could write a request
    // onto a socket the server had just closed ("other side closed"). 65 s is the usual setting behind
    // load balancers; shutdown does not wait for it (closeServer drops idle connections at once), and
    // the headers timeout stays above it so a reused connection is never cut mid-request.
    httpServer.keepAliveTimeout = options.keepAliveTimeoutMs ?? KEEP_ALIVE_TIMEOUT_MS;
    httpServer.headersTimeout = httpServer.keepAliveTimeout + 1_000;
    httpServer.once('error', reject);
    httpServer.once('listening', () => {
      httpServer.off('error', reject);
      const address = httpServer.address() as AddressInfo;
      const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({
        server: httpServer,
        host: address.address,
        port: address.port,
        url: `http://${urlHost}:${address.port}`,
        close: () => closeServer(httpServer),
      });
    });
  });
}

/**
 * `server.close()` that waits for in-flight requests and drops keep-alive connections as soon as they
 * turn idle (a connection that just finished its response would otherwise linger until its keep-alive
 * timeout).
 */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!server.listening) {
      resolve();
      return;
    }
    const sweep = setInterval(() => server.closeIdleConnections(), 25);
    server.close((error) => {
      clearInterval(sweep);
      if (error) reject(error);
      else resolve();
    });
    server.closeIdleConnections();
  });
}
