import type { Context } from '@ars/http-app';

/** A page of the gateway: HTML, never cached, never framed, no script. */
export function html(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  // No framing (a consent page must not be clickjacked), no script, no outside resources.
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'");
  // `same-origin`, not `no-referrer`: the page's URL (its query) never leaves the gateway, while the
  // form's POST still carries the page's Origin, which checkOrigin needs (under `no-referrer` a
  // browser sends `Origin: null`, and every real Allow/Deny would be refused).
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.body = body;
}
