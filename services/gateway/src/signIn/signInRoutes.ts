// The browser's sign-in (OpenID Connect) and sign-out:
//   GET  /auth/sign-in?returnTo=  → 302 to the issuer's authorization endpoint (PKCE S256, state, nonce),
//                                   the attempt kept under a one-time code in a short-lived cookie of this browser
//   GET  /auth/callback           → the attempt taken (once), the answer checked (openId.finish), the email rule,
//                                   the user found or made, a new session, 303 to returnTo; any refusal 400/403, nothing made
//   POST /auth/sign-out           → the session deleted, 303 to the provider's end-session endpoint (or /auth/signed-out)
//   GET  /auth/signed-out         → the signed-out page
import { Router, type Context, type RouterMiddleware } from '@ars/http-app';
import {
  CALLBACK_PATH,
  displayClaim,
  emailRefusal,
  returnToOf,
  SIGN_IN_ATTEMPT_TTL_SECONDS,
  SIGN_IN_COOKIE,
  SIGN_IN_COOKIE_PATH,
  SIGN_IN_PATH,
  SIGN_OUT_PATH,
  SIGNED_OUT_PATH,
  type SignInAttempt,
} from '../domain/signIn.js';
import { cookieHeader, cookieValue } from '../domain/sessions.js';
import { generateOneTimeCode, hashOneTimeCode } from '../domain/oneTimeCodes.js';
import type { Gateway } from '../http/deps.js';
import { checkOrigin, clearSessionCookie, servedOverTls, sessionOf, startSession } from '../http/sessionAuth.js';
import { html } from '../oauth/oauthRoutes.js';
import { signInPageHtml } from '../oauth/consentPage.js';
import { ProviderUnavailable, SignInRefused } from './openIdConnect.js';
import { noSignInMethodPageHtml, providerUnavailablePageHtml, signedOutPageHtml, signInFailedPageHtml } from './signInPages.js';

function setAttemptCookie(gateway: Gateway, ctx: Context, value: string, maxAgeSeconds: number): void {
  ctx.append('Set-Cookie', cookieHeader(SIGN_IN_COOKIE, value, { maxAgeSeconds, secure: servedOverTls(gateway, ctx), path: SIGN_IN_COOKIE_PATH }));
}

function redirect(ctx: Context, location: string, status: 302 | 303): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.status = status;
  ctx.redirect(location);
}

function startSignIn(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const openId = gateway.openIdConnect;
    if (!openId) return html(ctx, 404, noSignInMethodPageHtml());
    let started;
    try {
      started = await openId.begin(returnToOf(ctx.query.returnTo));
    } catch (error) {
      if (!(error instanceof ProviderUnavailable)) throw error;
      gateway.logger.warn({ err: error }, 'sign-in could not start: the identity provider is unavailable');
      return html(ctx, 503, providerUnavailablePageHtml());
    }
    const code = generateOneTimeCode();
    await gateway.signInAttempts.create(hashOneTimeCode(code), started.attempt, SIGN_IN_ATTEMPT_TTL_SECONDS);
    setAttemptCookie(gateway, ctx, code, SIGN_IN_ATTEMPT_TTL_SECONDS);
    redirect(ctx, started.url.href, 302);
  };
}

/** The attempt this browser started, taken (so an answer is used at most once), and its cookie cleared. */
async function takeAttempt(gateway: Gateway, ctx: Context): Promise<SignInAttempt | undefined> {
  const code = cookieValue(ctx.get('Cookie') || undefined, SIGN_IN_COOKIE);
  setAttemptCookie(gateway, ctx, '', 0);
  if (!code || !/^[A-Za-z0-9_-]{43}$/.test(code)) return undefined;
  return gateway.signInAttempts.take(hashOneTimeCode(code));
}

function refuse(gateway: Gateway, ctx: Context, refusal: SignInRefused): void {
  gateway.logger.info({ reason: refusal.reason, detail: refusal.detail }, 'sign-in refused');
  html(ctx, refusal.status, signInFailedPageHtml(refusal.reason));
}

function finishSignIn(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const openId = gateway.openIdConnect;
    if (!openId) return html(ctx, 404, noSignInMethodPageHtml());
    const attempt = await takeAttempt(gateway, ctx);
    if (!attempt) {
      const reason = 'This browser has no sign-in under way (it was finished already, or it expired after 10 minutes).';
      return refuse(gateway, ctx, new SignInRefused(400, reason, 'no sign-in attempt for this browser'));
    }
    let finished;
    try {
      // The URL the provider sent the browser to, as registered: the public origin, this path, the answer's query.
      finished = await openId.finish(new URL(ctx.originalUrl, gateway.publicOrigin), attempt);
    } catch (error) {
      if (error instanceof SignInRefused) return refuse(gateway, ctx, error);
      if (!(error instanceof ProviderUnavailable)) throw error;
      gateway.logger.warn({ err: error }, 'sign-in could not finish: the identity provider is unavailable');
      return html(ctx, 503, providerUnavailablePageHtml());
    }
    const refusal = emailRefusal(finished.claims, gateway.oidcSettings ?? { allowedEmailDomains: [], allowAny: false });
    if (refusal) return refuse(gateway, ctx, new SignInRefused(403, refusal, `email rule: ${refusal}`));
    const user = await gateway.users.signedIn(
      { method: 'oidc', issuer: finished.issuer, subject: finished.claims.sub },
      { email: displayClaim(finished.claims.email)?.toLowerCase(), name: displayClaim(finished.claims.name) },
    );
    // A new session id at every sign-in: a session cookie planted before it is worth nothing after.
    const previous = await sessionOf(gateway, ctx);
    if (previous) await gateway.sessions.remove(previous.idHash);
    await startSession(gateway, ctx, user._id, { idToken: finished.idToken });
    gateway.logger.info({ user_id: user._id }, 'signed in');
    redirect(ctx, attempt.returnTo, 303);
  };
}

function signOut(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const session = await sessionOf(gateway, ctx);
    if (session) await gateway.sessions.remove(session.idHash);
    clearSessionCookie(gateway, ctx);
    const signedOut = `${gateway.publicOrigin}${SIGNED_OUT_PATH}`;
    const atProvider = session?.idToken ? await gateway.openIdConnect?.endSessionUrl(session.idToken, signedOut) : undefined;
    redirect(ctx, atProvider?.href ?? signedOut, 303);
  };
}

export function signInRoutes(gateway: Gateway): Router {
  const router = new Router();
  router.get(SIGN_IN_PATH, startSignIn(gateway));
  router.get(CALLBACK_PATH, finishSignIn(gateway));
  router.post(SIGN_OUT_PATH, checkOrigin(gateway), signOut(gateway));
  router.get(SIGNED_OUT_PATH, (ctx) => html(ctx, 200, signedOutPageHtml()));
  return router;
}

/**
 * A page that needs a session, asked for by a signed-out browser: off to sign in, and back to this
 * page afterwards; without a sign-in method (development), the page that says where a session comes from.
 */
export function askToSignIn(gateway: Gateway, ctx: Context): void {
  if (!gateway.openIdConnect) return html(ctx, 401, signInPageHtml(gateway.publicOrigin, gateway.production));
  redirect(ctx, `${SIGN_IN_PATH}?returnTo=${encodeURIComponent(returnToOf(ctx.originalUrl))}`, 302);
}
