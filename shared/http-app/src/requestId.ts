import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { requestLogger, type Logger } from '@ars/logger';
import { runWithRequestContext, type RequestContext } from './requestContext.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** A request id we accept from a caller: short, printable, no spaces or separators that break logs. */
const SANE_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export function isSaneRequestId(value: string | undefined): value is string {
  return value !== undefined && SANE_REQUEST_ID.test(value);
}

// Probes and scrapes come every few seconds: their lines are debug.
const PROBE_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * A request's `ctx.state`, and its current-request context: the request id, and a child logger
 * bound to it made on first use. Most requests log no line of their own, and at `warn` not even the
 * access line: a pino child with the redaction paths costs about 10 µs to make (its bindings pass
 * the wildcard redactor), about 2 % of a service's CPU per request (issue 33's profiles).
 */
export class RequestState implements RequestContext {
  #logger: Logger | undefined;
  readonly #parent: Logger;

  constructor(
    readonly requestId: string,
    parent: Logger,
  ) {
    this.#parent = parent;
  }

  /** The request's child logger (`request_id` on every line), made on first use. */
  get logger(): Logger {
    this.#logger ??= requestLogger(this.#parent, this.requestId);
    return this.#logger;
  }

  set logger(logger: Logger) {
    this.#logger = logger;
  }

  /** Whether a line at `level` would be written (asked of the parent: no child is made for it). */
  logs(level: 'debug' | 'info' | 'error'): boolean {
    return (this.#logger ?? this.#parent).isLevelEnabled(level);
  }
}

/** The access line's level: probes and scrapes debug, server errors error, the rest info. */
function accessLevel(ctx: Context): 'debug' | 'info' | 'error' {
  if (PROBE_PATHS.has(ctx.path)) return 'debug';
  return ctx.status >= 500 ? 'error' : 'info';
}

/** Told of every answered request with its duration (the request metrics, `httpMetrics`). */
export type RequestObserver = (ctx: Context, seconds: number) => void;

/** The access-log line of a finished request, at its level when that level is written. */
function writeAccessLine(ctx: Context, state: RequestState, durationMs: number): void {
  const level = accessLevel(ctx);
  if (!state.logs(level)) return;
  const line = {
    method: ctx.method,
    path: ctx.path,
    status: ctx.status,
    duration_ms: Math.round(durationMs * 10) / 10,
    caller: ctx.state.caller,
    code: ctx.state.errorCode,
  };
  state.logger[level](line, 'request');
}

/**
 * Outermost middleware: takes a sane `X-Request-Id` or makes one, sets it on every response, binds
 * a child logger (made when first used), makes both the current request context, writes one
 * access-log line, and tells `observe` (the request metrics) of the answered request.
 */
export function requestIdAndAccessLog(logger: Logger, observe?: RequestObserver): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get(REQUEST_ID_HEADER);
    const requestId = isSaneRequestId(incoming) ? incoming : randomUUID();
    // Koa makes `ctx.state` an empty object per request and this is the first middleware to touch it.
    const state = new RequestState(requestId, logger);
    ctx.state = state;
    ctx.set(REQUEST_ID_HEADER, requestId);
    const started = process.hrtime.bigint();
    try {
      await runWithRequestContext(state, next);
    } finally {
      // Error responses rebuild their headers; make sure the id survived.
      if (!ctx.headerSent) ctx.set(REQUEST_ID_HEADER, requestId);
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      observe?.(ctx, durationMs / 1e3);
      writeAccessLine(ctx, state, durationMs);
    }
  };
}
