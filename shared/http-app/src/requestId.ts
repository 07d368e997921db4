import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { requestLogger, type Logger } from '@ars/logger';
import { runWithRequestContext } from './requestContext.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** A request id we accept from a caller: short, printable, no spaces or separators that break logs. */
const SANE_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export function isSaneRequestId(value: string | undefined): value is string {
  return value !== undefined && SANE_REQUEST_ID.test(value);
}

// Probes and scrapes come every few seconds: their lines are debug.
const PROBE_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Outermost middleware: takes a sane `X-Request-Id` or makes one, sets it on every response, binds
 * a child logger, makes both the current request context, and writes one access-log line.
 */
export function requestIdAndAccessLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get(REQUEST_ID_HEADER);
    const requestId = isSaneRequestId(incoming) ? incoming : randomUUID();
    const log = requestLogger(logger, requestId);
    ctx.state.requestId = requestId;
    ctx.state.logger = log;
    ctx.set(REQUEST_ID_HEADER, requestId);
    const started = process.hrtime.bigint();
    try {
      await runWithRequestContext({ requestId, logger: log }, next);
    } finally {
      // Error responses rebuild their headers; make sure the id survived.
      if (!ctx.headerSent) ctx.set(REQUEST_ID_HEADER, requestId);
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const line = {
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        duration_ms: Math.round(durationMs * 10) / 10,
        caller: ctx.state.caller,
        code: ctx.state.errorCode,
      };
      if (PROBE_PATHS.has(ctx.path)) log.debug(line, 'request');
      else if (ctx.status >= 500) log.error(line, 'request');
      else log.info(line, 'request');
    }
  };
}
