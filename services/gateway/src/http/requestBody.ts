import type { Context } from '@ars/http-app';

/** The JSON body the kit's body parser left on the request (`undefined` when none was sent). */
export function requestBody(ctx: Context): unknown {
  return (ctx.request as { body?: unknown }).body;
}
