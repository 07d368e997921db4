import type { Context } from 'koa';
import { successEnvelope } from '@ars/errors';

/** Writes `{ok: true, data}` with `status` (default 200). */
export function ok<T>(ctx: Context, data: T, status = 200): void {
  ctx.status = status;
  ctx.body = successEnvelope(data);
}
