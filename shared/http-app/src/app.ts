import { createServer, type Server } from 'node:http';
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
import { answerClientErrors, closeSilentConnections, dropRefusedConnections } from './clientErrors.js';

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
   * Counts every request by route template, method and status (`runService` turns it on). The
   * registry is served by a listener of its own (`createMetricsApp`), never on this app's port.
   */
  metrics?: boolean;
}

/**
 * A Koa app with, in order: request id + per-request logger (made on first use) + access log + metrics (option; in the same layer), error → envelope mapping
 * (404 for unknown routes and wrong methods), JSON body parsing with a size limit, `/healthz` and `/readyz`. Mount routes with
 * `mountRouters` (or plain `app.use`).
 */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const app = new Koa();
  app.silent = true;
  app.on('error', (error: unknown) => options.logger.error({ err: error }, 'koa error'));
  app.use(requestIdAndAccessLog(options.logger, options.metrics ? httpMetrics() : undefined));
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
/** How long a client may take to send a request's line and headers, from its first byte (see startHttpServer). */
export const HEADERS_TIMEOUT_MS = 10_000;
/** How long a client may take to send a whole request, headers and body, from its first byte (see startHttpServer). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** The request line and headers together, at most (Node's default, pinned: see startHttpServer). */
export const MAX_HEADER_SIZE_BYTES = 16_384;

/** How long clients may take, and how long an idle connection is kept (each in ms; defaults above). */
export interface HttpServerTimeouts {
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  /** How often the headers and request timeouts are checked; default 1 s, or a quarter of the headers timeout when that is shorter. */
  connectionsCheckingIntervalMs?: number;
}

export interface HttpServerOptions extends HttpServerTimeouts {
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Where each request refused at the edge is logged (one info line, like an access-log line); default none. */
  logger?: Logger;
}

/**
 * Listens on `host:port` (port 0 picks a free one) and resolves once bound. Slow and malformed
 * clients are answered at the server's edge, before any middleware: a request whose headers take
 * longer than `headersTimeoutMs`, or which takes longer than `requestTimeoutMs` in all, and one the
 * parser refuses (malformed, or a request line and headers over MAX_HEADER_SIZE_BYTES) get 400
 * BAD_REQUEST in the failure envelope and the connection is closed; a connection that sends nothing
 * is closed after `headersTimeoutMs`.
 */
export function startHttpServer(app: HttpApp, options: HttpServerOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    if (headersTimeout > requestTimeout) {
      reject(new RangeError(`the headers timeout (${headersTimeout} ms) must not exceed the request timeout (${requestTimeout} ms)`));
      return;
    }
    // Built here, not with Koa's app.listen: the timeouts are only checked every
    // connectionsCheckingInterval, which Node reads from createServer's options alone (30 s by default).
    const httpServer = createServer(
      {
        // An idle keep-alive connection is closed by the server only long after any client stops reusing
        // it. Clients (undici: fetch, @ars/http-client) reuse a socket until the advertised timeout minus
        // a margin, checked with coarse timers; with Node's 5 s a CPU-starved client could write a request
        // onto a socket the server had just closed ("other side closed"). 65 s is the usual setting behind
        // load balancers; shutdown does not wait for it (closeServer drops idle connections at once).
        keepAliveTimeout: options.keepAliveTimeoutMs ?? KEEP_ALIVE_TIMEOUT_MS,
        // The headers timeout no longer has to stay above the keep-alive one so that a reused connection is
        // never cut mid-request: since Node 18 both timeouts run from the first byte of each request
        // (llhttp's on_message_begin stamps it), and the periodic check looks only at connections with a
        // request in progress, so the idle time before a reused connection's next request counts for
        // neither (serverEdges.security.test.ts shows a reuse after an idle longer than the headers timeout).
        headersTimeout,
        // Covers receiving the request only: a request is done with once its body has arrived, so a long
        // response (an SSE stream) is never cut by it.
        requestTimeout,
        connectionsCheckingInterval: options.connectionsCheckingIntervalMs ?? Math.min(1_000, Math.max(10, Math.floor(headersTimeout / 4))),
        // Node's default, pinned so that NODE_OPTIONS=--max-http-header-size cannot move it unseen: the
        // request line counts in it, so it bounds URLs too; an oversized one is answered 400 in the envelope.
        maxHeaderSize: MAX_HEADER_SIZE_BYTES,
      },
      app.callback(),
    );
    answerClientErrors(httpServer, {
      headersTimeoutMs: headersTimeout,
      requestTimeoutMs: requestTimeout,
      maxHeaderSizeBytes: MAX_HEADER_SIZE_BYTES,
      logger: options.logger,
    });
    // Node starts the headers timeout at a request's first byte: a connection that never sends one would stay open.
    closeSilentConnections(httpServer, headersTimeout);
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
    httpServer.listen({ host, port: options.port ?? 0 });
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
    // Connections answered at the edge only linger to drain what their client still sends.
    dropRefusedConnections(server);
    server.close((error) => {
      clearInterval(sweep);
      if (error) reject(error);
      else resolve();
    });
    server.closeIdleConnections();
  });
}
