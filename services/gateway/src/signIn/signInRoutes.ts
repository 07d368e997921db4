// The browser's sign-in and sign-out, whatever the method (OpenID Connect, GitHub):
//   GET  /auth/sign-in?returnTo=         → with one method, 302 straight to its provider; with two, the chooser page
//   GET  /auth/sign-in/:method?returnTo= → 302 to that method's provider (state, PKCE S256; OpenID Connect a nonce too),
//                                          the attempt kept under a one-time code in a short-lived cookie of this browser
//   GET  /auth/callback[/github]         → the attempt taken (once), the answer checked by its method (who may sign in
//                                          included), the user found or made, a new session, 303 to returnTo;
//                                          any refusal a 400/403 page, nothing made
//   POST /auth/sign-out                  → the session deleted, 303 to the provider's end-session endpoint (or /auth/signed-out)
//   GET  /auth/signed-out                → the signed-out page
import { Router, type Context, type RouterMiddleware } from '@ars/http-app';
import {
  callbackPathOf,
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
import type { Gateway } from '../deps.js';
import { checkOrigin, clearSessionCookie, servedOverTls, sessionOf, startSession } from '../auth/sessionAuth.js';
import { html } from '../http/pageAnswer.js';
import { redirect } from './askToSignIn.js';
import { recheckGitHubAtSignIn } from '../settings/gitHubConnectionRoutes.js';
import { ProviderUnavailable, SignInRefused, type SignInMethod } from './signInMethod.js';
import { chooserPageHtml, noSignInMethodPageHtml, providerUnavailablePageHtml, signedOutPageHtml, signInFailedPageHtml } from './signInPages.js';

function setAttemptCookie(gateway: Gateway, ctx: Context, value: string, maxAgeSeconds: number): void {
  ctx.append('Set-Cookie', cookieHeader(SIGN_IN_COOKIE, value, { maxAgeSeconds, secure: servedOverTls(gateway, ctx), path: SIGN_IN_COOKIE_PATH }));
}

function unavailable(gateway: Gateway, ctx: Context, error: ProviderUnavailable, when: string): void {
  gateway.logger.warn({ err: error }, `sign-in could not ${when}: the provider is unavailable`);
  html(ctx, 503, providerUnavailablePageHtml());
}

async function begin(gateway: Gateway, ctx: Context, method: SignInMethod, returnTo: string): Promise<void> {
  let started;
  try {
    started = await method.begin(returnTo);
  } catch (error) {
    if (!(error instanceof ProviderUnavailable)) throw error;
    return unavailable(gateway, ctx, error, 'start');
  }
  const code = generateOneTimeCode();
  await gateway.signInAttempts.create(hashOneTimeCode(code), started.attempt, SIGN_IN_ATTEMPT_TTL_SECONDS);
  setAttemptCookie(gateway, ctx, code, SIGN_IN_ATTEMPT_TTL_SECONDS);
  redirect(ctx, started.url.href, 302);
}

/** With one method, straight to it; with several, the page that lets the user choose. */
function startSignIn(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const returnTo = returnToOf(ctx.query.returnTo);
    const [only, ...more] = gateway.signInMethods;
    if (!only) return html(ctx, 404, noSignInMethodPageHtml());
    if (more.length === 0) return begin(gateway, ctx, only, returnTo);
    html(ctx, 200, chooserPageHtml(gateway.signInMethods, returnTo));
  };
}

function startMethod(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const method = gateway.signInMethods.find((candidate) => candidate.method === ctx.params.method);
    if (!method) return html(ctx, 404, noSignInMethodPageHtml());
    await begin(gateway, ctx, method, returnToOf(ctx.query.returnTo));
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

function finishSignIn(gateway: Gateway, methodName: SignInAttempt['method']): RouterMiddleware {
  return async (ctx) => {
    const method = gateway.signInMethods.find((candidate) => candidate.method === methodName);
    if (!method) return html(ctx, 404, noSignInMethodPageHtml());
    const attempt = await takeAttempt(gateway, ctx);
    if (!attempt) {
      const reason = 'This browser has no sign-in under way (it was finished already, or it expired after 10 minutes).';
      return refuse(gateway, ctx, new SignInRefused(400, reason, 'no sign-in attempt for this browser'));
    }
    let signedIn;
    try {
      // The URL the provider sent the browser to, as registered: the public origin, this path, the answer's query.
      signedIn = await method.finish(new URL(ctx.originalUrl, gateway.publicOrigin), attempt);
    } catch (error) {
      if (error instanceof SignInRefused) return refuse(gateway, ctx, error);
      if (error instanceof ProviderUnavailable) return unavailable(gateway, ctx, error, 'finish');
      throw error;
    }
    if ((await gateway.users.findByIdentity(signedIn.identity))?.disabledAt) {
      return refuse(gateway, ctx, new SignInRefused(403, 'This account is disabled; ask your administrator.', `disabled: ${signedIn.identity.subject}`));
    }
    const user = await gateway.users.signedIn(signedIn.identity, { email: signedIn.email, name: signedIn.name });
    // A new session id at every sign-in: a session cookie planted before it is worth nothing after.
    const previous = await sessionOf(gateway, ctx);
    if (previous) await gateway.browserSessions.remove(previous.idHash);
    await startSession(gateway, ctx, user._id, signedIn.idToken ? { idToken: signedIn.idToken } : undefined);
    await recheckGitHubAtSignIn(gateway, user._id, signedIn.gitHubTokens);
    gateway.logger.info({ user_id: user._id, method: method.method }, 'signed in');
    redirect(ctx, attempt.returnTo, 303);
  };
}

function signOut(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const session = await sessionOf(gateway, ctx);
    if (session) await gateway.browserSessions.remove(session.idHash);
    clearSessionCookie(gateway, ctx);
    const signedOut = `${gateway.publicOrigin}${SIGNED_OUT_PATH}`;
    // Only an OpenID Connect session carries an ID token; its provider may end its own session too.
    const oidc = gateway.signInMethods.find((method) => method.method === 'oidc');
    const atProvider = session?.idToken ? await oidc?.endSessionUrl?.(session.idToken, signedOut) : undefined;
    redirect(ctx, atProvider?.href ?? signedOut, 303);
  };
}

export function signInRoutes(gateway: Gateway): Router {
  const router = new Router();
  router.get(SIGN_IN_PATH, startSignIn(gateway));
  router.get(`${SIGN_IN_PATH}/:method`, startMethod(gateway));
  for (const method of gateway.signInMethods) router.get(callbackPathOf(method.method), finishSignIn(gateway, method.method));
  router.post(SIGN_OUT_PATH, checkOrigin(gateway), signOut(gateway));
  router.get(SIGNED_OUT_PATH, (ctx) => html(ctx, 200, signedOutPageHtml()));
  return router;
}
