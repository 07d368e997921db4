import type { Context } from '@ars/http-app';
import { returnToOf, SIGN_IN_PATH } from '../domain/signIn.js';
import type { Gateway } from '../deps.js';
import { html } from '../http/pageAnswer.js';
import { signInPageHtml } from '../oauth/consentPage.js';

/** A redirect the browser must not cache (each sign-in step's answer is for this attempt only). */
export function redirect(ctx: Context, location: string, status: 302 | 303): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.status = status;
  ctx.redirect(location);
}

/**
 * A page that needs a session, asked for by a signed-out browser: off to sign in, and back to this
 * page afterwards; without a sign-in method (development), the page that says where a session comes from.
 */
export function askToSignIn(gateway: Gateway, ctx: Context): void {
  if (gateway.signInMethods.length === 0) return html(ctx, 401, signInPageHtml(gateway.publicOrigin, gateway.production));
  redirect(ctx, `${SIGN_IN_PATH}?returnTo=${encodeURIComponent(returnToOf(ctx.originalUrl))}`, 302);
}
