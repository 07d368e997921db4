import { Router, type RouterMiddleware } from '@ars/http-app';
import { DEV_SIGN_IN_PATH, INVALID_SIGN_IN_LINK, signInCodeOf } from '../domain/devSignIn.js';
import { hashOneTimeCode } from '../domain/oneTimeCodes.js';
import { html } from './pageAnswer.js';
import { devSignInFailedPageHtml, devSignedInPageHtml } from '../oauth/consentPage.js';
import type { Gateway } from '../deps.js';
import { startSession } from '../auth/sessionAuth.js';

/**
 * GET /dev/sign-in?code=… (only outside production): the link's code is taken (one use), and the
 * browser gets a session of its user, as `POST /api/dev/accounts` gave the caller. The page says to
 * go back to the consent page and reload it. The URL holds the code, so this page's own address is
 * never sent on as a Referer.
 */
function signInWithLink(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const code = signInCodeOf(ctx.query.code);
    const grant = code ? await gateway.devSignInCodes.take(hashOneTimeCode(code)) : undefined;
    if (!grant) {
      html(ctx, 400, devSignInFailedPageHtml(INVALID_SIGN_IN_LINK));
    } else {
      await startSession(gateway, ctx, grant.userId);
      html(ctx, 200, devSignedInPageHtml(grant.userId));
    }
    ctx.set('Referrer-Policy', 'no-referrer');
  };
}

/** The development sign-in link's page; no route at all in production. */
export function devSignInRoutes(gateway: Gateway): Router {
  const router = new Router();
  if (!gateway.production) router.get(DEV_SIGN_IN_PATH, signInWithLink(gateway));
  return router;
}
