import { AppError } from '@ars/errors';
import type { RouterContext } from '@koa/router';

/** A path parameter; an empty or over-long one cannot name anything the caller owns (404). */
export function pathParam(ctx: RouterContext, name: string): string {
  const value = ctx.params[name];
  if (!value || value.length > 200) throw AppError.notFound();
  return value;
}

/** The parsed JSON body (the app parses it before the routes run). */
export function requestBody(ctx: RouterContext): unknown {
  return (ctx.request as { body?: unknown }).body;
}
