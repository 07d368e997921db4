import type { Context, Middleware } from 'koa';
import { AppError, failureEnvelope, toAppError } from '@ars/errors';
import { REQUEST_ID_HEADER } from './requestId.js';

/**
 * A known path asked with a method it does not support. The contract's codes have no 405 and its
 * status always matches its code, so this is 404 NOT_FOUND (no such route for that method), with
 * `Allow` naming the methods that exist (docs/decisions.md).
 */
export function methodNotAllowed(method: string, path: string, allowed: readonly string[]): AppError {
  return new AppError('NOT_FOUND', `No route for ${method} ${path} (allowed: ${allowed.join(', ')})`, {
    headers: { Allow: allowed.join(', ') },
  });
}

export function routeNotFound(method: string, path: string): AppError {
  return AppError.notFound(`No route for ${method} ${path}`);
}

function writeError(ctx: Context, error: AppError): void {
  const requestId = ctx.state.requestId;
  // Drop headers the failed handler may have set (content type, caching, cookies) — like Koa's onerror.
  for (const name of ctx.res.getHeaderNames()) ctx.res.removeHeader(name);
  if (requestId) ctx.set(REQUEST_ID_HEADER, requestId);
  ctx.set(error.headers);
  ctx.status = error.status;
  ctx.state.errorCode = error.code;
  ctx.body = failureEnvelope(error.code, error.message);
}

/**
 * Maps everything thrown below it to the contract's failure envelope with the status of its code and
 * the AppError's headers. Unknown errors become 500 INTERNAL_ERROR with a fixed message, logged with
 * their stack. Unhandled requests, and a known path with a wrong method, become 404 NOT_FOUND.
 */
export function errorEnvelope(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (thrown) {
      const error = toAppError(thrown);
      if (ctx.headerSent || !ctx.writable) {
        ctx.state.logger.error({ err: thrown }, 'error after the response was sent');
        return;
      }
      if (error !== thrown) ctx.state.logger.error({ err: thrown }, 'unhandled error');
      else if (error.code === 'INTERNAL_ERROR') ctx.state.logger.error({ err: error, code: error.code }, error.message);
      else if (error.status >= 500) ctx.state.logger.warn({ code: error.code, cause: error.cause }, error.message);
      writeError(ctx, error);
      return;
    }
    if (ctx.body !== undefined && ctx.body !== null) return;
    if (ctx.status === 404) {
      writeError(ctx, routeNotFound(ctx.method, ctx.path));
    } else if (ctx.status === 405) {
      const allowed = (ctx.response.get('Allow') || '')
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean);
      writeError(ctx, methodNotAllowed(ctx.method, ctx.path, allowed));
    } else if (ctx.status === 501) {
      writeError(ctx, AppError.badRequest(`Method ${ctx.method} is not supported`));
    }
  };
}
