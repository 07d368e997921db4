import { AppError } from '@ars/errors';
import { ok, readRawBody, Router, validateBody, type Context, type RouterMiddleware } from '@ars/http-app';
import {
  callbackUrl,
  CLI_LOGIN_CODE_TTL_SECONDS,
  cliTokenName,
  INVALID_LOGIN_CODE,
  parseCliLoginRequest,
  tokenExchangeWindow,
  verifierMatches,
} from '../domain/cliLogin.js';
import { generateOneTimeCode, hashOneTimeCode } from '../domain/oneTimeCodes.js';
import { LIMITER_UNAVAILABLE, RETRY_AFTER_SECONDS } from '../domain/limits.js';
import { signInPageHtml } from '../oauth/consentPage.js';
import { askToSignIn } from '../signIn/askToSignIn.js';
import { html } from './pageAnswer.js';
import { cliConsentPageHtml, cliLoginErrorPageHtml } from './cliLoginPage.js';
import { mintPersonalAccessToken } from './createPersonalAccessToken.js';
import type { Gateway } from '../deps.js';
import { requestBody } from './requestBody.js';
import { checkOrigin, sessionOf } from '../auth/sessionAuth.js';

/** The consent page and its form: browser pages, outside `/api`. */
export const CLI_LOGIN_PATH = '/cli/login';

/** GET: the consent page of a valid request on a live session; the sign-in page without one; an error page otherwise. */
function showCliConsent(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const parsed = parseCliLoginRequest((name) => {
      const value = ctx.query[name];
      return typeof value === 'string' ? value : undefined;
    });
    if (!parsed.ok) return html(ctx, 400, cliLoginErrorPageHtml(parsed.problem));
    if (!(await sessionOf(gateway, ctx))) return askToSignIn(gateway, ctx);
    html(ctx, 200, cliConsentPageHtml(parsed.request));
  };
}

/**
 * POST (the form, same-origin only): the request checked again, then Allow stores a one-time code
 * bound to the user, the scopes, the challenge and the redirect URI and sends the browser to the
 * listener with it; Deny sends `error=access_denied`. No token exists yet: it is minted at the exchange.
 */
function decideCliConsent(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const form = new URLSearchParams(await readRawBody(ctx, 8192));
    const parsed = parseCliLoginRequest((name) => form.get(name) ?? undefined);
    if (!parsed.ok) return html(ctx, 400, cliLoginErrorPageHtml(parsed.problem));
    const session = await sessionOf(gateway, ctx);
    if (!session) return html(ctx, 401, signInPageHtml(gateway.publicOrigin, gateway.production));
    const decision = form.get('decision');
    if (decision !== 'allow' && decision !== 'deny') return html(ctx, 400, cliLoginErrorPageHtml('decision must be allow or deny'));
    const { request } = parsed;
    let location: string;
    if (decision === 'deny') {
      location = callbackUrl(request, { error: 'access_denied' });
    } else {
      const code = generateOneTimeCode();
      await gateway.cliLoginCodes.create(
        hashOneTimeCode(code),
        {
          userId: session.userId,
          scopes: request.scopes,
          codeChallenge: request.codeChallenge,
          redirectUri: request.redirectUri,
          clientName: request.clientName,
        },
        CLI_LOGIN_CODE_TTL_SECONDS,
      );
      location = callbackUrl(request, { code });
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.status = 303;
    ctx.redirect(location);
  };
}

interface TokenExchangeBody {
  code: string;
  code_verifier: string;
  redirect_uri: string;
}

const parseTokenExchange = validateBody<TokenExchangeBody>({
  type: 'object',
  required: ['code', 'code_verifier', 'redirect_uri'],
  properties: {
    code: { type: 'string', minLength: 1, maxLength: 200 },
    code_verifier: { type: 'string', minLength: 1, maxLength: 200 },
    redirect_uri: { type: 'string', minLength: 1, maxLength: 200 },
  },
});

/** Per client address, like registration: the exchange needs no token, so the address is all there is to count. */
async function limitExchanges(gateway: Gateway, ctx: Context): Promise<void> {
  const perMinute = gateway.config.CLI_TOKEN_EXCHANGES_PER_MINUTE;
  let allowed: boolean;
  try {
    allowed = (await gateway.limiter.consume([tokenExchangeWindow(ctx.ip, perMinute)])).allowed;
  } catch (error) {
    gateway.logger.warn({ err: error }, 'rate-limit backend unavailable');
    throw AppError.unavailable(LIMITER_UNAVAILABLE, RETRY_AFTER_SECONDS);
  }
  if (!allowed) {
    throw AppError.rateLimited(
      `Too many login code exchanges: ${perMinute} per minute per address; retry after ${RETRY_AFTER_SECONDS} seconds`,
      RETRY_AFTER_SECONDS,
    );
  }
}

/**
 * POST /api/cli/login/token `{code, code_verifier, redirect_uri}` → `{token, id, prefix, scopes, expiresAt}`.
 * The code is taken (deleted) first, so whatever follows it is spent: a replay, or a second try with
 * another verifier, finds nothing. Then PKCE and the redirect URI; only then is the PAT minted.
 */
function exchangeLoginCode(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    await limitExchanges(gateway, ctx);
    const body = parseTokenExchange(requestBody(ctx));
    const taken = await gateway.cliLoginCodes.take(hashOneTimeCode(body.code));
    if (!taken) throw AppError.badRequest(INVALID_LOGIN_CODE);
    if (!verifierMatches(body.code_verifier, taken.codeChallenge)) throw AppError.badRequest('code_verifier does not match the code_challenge');
    if (body.redirect_uri !== taken.redirectUri) throw AppError.badRequest('redirect_uri does not match the login request');
    const minted = await mintPersonalAccessToken(gateway, { userId: taken.userId, name: cliTokenName(taken.clientName), scopes: taken.scopes });
    ctx.set('Cache-Control', 'no-store');
    ok(ctx, { token: minted.token, id: minted.id, prefix: minted.prefix, scopes: minted.scopes, expiresAt: minted.expiresAt });
  };
}

/** The browser login of `ars` (README, "CLI login"): the consent page, its form, and the code exchange. */
export function cliLoginRoutes(gateway: Gateway): Router {
  const router = new Router();
  router.get(CLI_LOGIN_PATH, showCliConsent(gateway));
  router.post(CLI_LOGIN_PATH, checkOrigin(gateway) as RouterMiddleware, decideCliConsent(gateway));
  router.post('/api/cli/login/token', exchangeLoginCode(gateway));
  return router;
}
