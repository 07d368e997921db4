// Connect GitHub: the GitHub App's installation linked to the signed-in user only after GitHub
// proves the user can see it — an `installation_id` in a URL proves nothing.
//   POST /settings/github/connect   → a state tied to this user (1 hour), 303 to the App's installation page on GitHub
//   GET  /settings/github/setup     → GitHub's Setup URL (installation_id, setup_action, state): the state taken
//                                     (once, this user's), then GitHub's web flow for a user token (state, PKCE S256)
//   GET  /settings/github/callback  → the code exchanged; the catalog checks what the token's user reaches
//                                     (GET /user/installations, …/repositories) and keeps it; 303 to /settings when
//                                     that includes the installation, else 403 and nothing of it linked
//   POST /settings/github/refresh   → the catalog rechecks with the kept refresh token; 303 to /settings
import { isAppError } from '@ars/errors';
import { Router, type Context, type RouterMiddleware } from '@ars/http-app';
import type { GitHubConnectionSettings } from '../config.js';
import { generateOneTimeCode, hashOneTimeCode } from '../domain/oneTimeCodes.js';
import { authorizeUrl, codeOfAnswer, exchangeCode, type GitHubUserTokens } from '../github/gitHubWebFlow.js';
import type { Gateway } from '../deps.js';
import { checkOrigin, requireSession, sessionOf, sessionPrincipalOf } from '../auth/sessionAuth.js';
import { html } from '../http/pageAnswer.js';
import { askToSignIn } from '../signIn/askToSignIn.js';
import { ProviderUnavailable, SignInRefused } from '../signIn/signInMethod.js';
import { settingsProblemPageHtml } from './settingsPage.js';

export const GITHUB_SETUP_PATH = '/settings/github/setup';
export const GITHUB_CONNECT_CALLBACK_PATH = '/settings/github/callback';
/** Installing takes a person through GitHub's pages (choosing an account, repositories): an hour is enough. */
const INSTALL_TTL_SECONDS = 3600;
const AUTHORIZE_TTL_SECONDS = 600;

/** What a Connect under way keeps, under the SHA-256 of its `state`. */
export type GitHubConnectAttempt = { step: 'install'; userId: string } | { step: 'authorize'; userId: string; codeVerifier: string; installationId: number };

function seeOther(ctx: Context, location: string, status: 302 | 303 = 303): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.status = status;
  ctx.redirect(location);
}

function refuse(gateway: Gateway, ctx: Context, status: 400 | 403 | 503, why: string): void {
  gateway.logger.info({ reason: why, status }, 'github connection refused');
  html(ctx, status, settingsProblemPageHtml(why));
}

/** The attempt of this `state`, taken once, when it is this user's at this step. */
async function takeAttempt<S extends GitHubConnectAttempt['step']>(
  gateway: Gateway,
  state: unknown,
  step: S,
  userId: string,
): Promise<Extract<GitHubConnectAttempt, { step: S }> | undefined> {
  if (typeof state !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(state)) return undefined;
  const attempt = await gateway.gitHubConnects.take(hashOneTimeCode(state));
  return attempt?.step === step && attempt.userId === userId ? (attempt as Extract<GitHubConnectAttempt, { step: S }>) : undefined;
}

function connect(gateway: Gateway, settings: GitHubConnectionSettings): RouterMiddleware {
  return async (ctx) => {
    const { userId } = sessionPrincipalOf(ctx.state);
    const state = generateOneTimeCode();
    await gateway.gitHubConnects.create(hashOneTimeCode(state), { step: 'install', userId }, INSTALL_TTL_SECONDS);
    const install = new URL(`${settings.webUrl.replace(/\/+$/, '')}/apps/${encodeURIComponent(settings.slug)}/installations/new`);
    install.searchParams.set('state', state);
    seeOther(ctx, install.href);
  };
}

function setup(gateway: Gateway, settings: GitHubConnectionSettings): RouterMiddleware {
  return async (ctx) => {
    const session = await sessionOf(gateway, ctx);
    if (!session) return askToSignIn(gateway, ctx);
    if (ctx.query.setup_action === 'request') {
      return refuse(
        gateway,
        ctx,
        400,
        'GitHub sent the installation to an owner of the organization for approval; once approved, Refresh shows its repositories.',
      );
    }
    const attempt = await takeAttempt(gateway, ctx.query.state, 'install', session.userId);
    if (!attempt) {
      return refuse(
        gateway,
        ctx,
        400,
        'This answer from GitHub does not belong to a connection you started here (its state is missing, used or expired). Start again with Connect GitHub.',
      );
    }
    const raw = ctx.query.installation_id;
    const installationId = typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(installationId) || installationId < 1) return refuse(gateway, ctx, 400, 'GitHub sent no installation id.');
    const { url, state, codeVerifier } = authorizeUrl(settings, `${gateway.publicOrigin}${GITHUB_CONNECT_CALLBACK_PATH}`);
    await gateway.gitHubConnects.create(
      hashOneTimeCode(state),
      { step: 'authorize', userId: session.userId, codeVerifier, installationId },
      AUTHORIZE_TTL_SECONDS,
    );
    seeOther(ctx, url.href, 302);
  };
}

function callback(gateway: Gateway, settings: GitHubConnectionSettings): RouterMiddleware {
  return async (ctx) => {
    const session = await sessionOf(gateway, ctx);
    if (!session) return refuse(gateway, ctx, 400, 'Sign in first, then Connect GitHub from the settings page.');
    const attempt = await takeAttempt(gateway, ctx.query.state, 'authorize', session.userId);
    if (!attempt) return refuse(gateway, ctx, 400, 'This answer from GitHub does not belong to a connection you started here (its state does not match).');
    try {
      const code = codeOfAnswer(new URL(ctx.originalUrl, gateway.publicOrigin).searchParams);
      const tokens = await exchangeCode(settings, {
        code,
        redirectUri: `${gateway.publicOrigin}${GITHUB_CONNECT_CALLBACK_PATH}`,
        codeVerifier: attempt.codeVerifier,
      });
      const connection = await gateway.catalog.connectGitHub(session.userId, tokens);
      if (!connection.installations.some((installation) => installation.externalId === attempt.installationId)) {
        return refuse(
          gateway,
          ctx,
          403,
          `GitHub does not show installation ${attempt.installationId} to your GitHub account @${connection.login}; nothing of it was connected.`,
        );
      }
      gateway.logger.info({ user_id: session.userId, installation_external_id: attempt.installationId }, 'github installation connected');
      seeOther(ctx, '/settings');
    } catch (error) {
      if (error instanceof SignInRefused) return refuse(gateway, ctx, error.status, error.reason);
      if (error instanceof ProviderUnavailable) return refuse(gateway, ctx, 503, 'GitHub could not be reached; try again shortly.');
      if (isAppError(error) && error.code === 'CONFLICT')
        return refuse(gateway, ctx, 400, 'GitHub refused the token it had just given; start again with Connect GitHub.');
      if (isAppError(error)) return refuse(gateway, ctx, 503, 'GitHub or the catalog could not be reached; try again shortly.');
      throw error;
    }
  };
}

function refresh(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const { userId } = sessionPrincipalOf(ctx.state);
    try {
      await gateway.catalog.recheckGitHub(userId);
    } catch (error) {
      if (isAppError(error)) return refuse(gateway, ctx, 503, 'GitHub could not be asked right now; try again shortly.');
      throw error;
    }
    seeOther(ctx, '/settings');
  };
}

export function gitHubConnectionRoutes(gateway: Gateway): Router {
  const router = new Router();
  const settings = gateway.gitHubConnection;
  if (!settings) return router;
  const session = requireSession(gateway, 'Personal access tokens cannot use the settings page; sign in with a browser session');
  const origin = checkOrigin(gateway);
  router.post('/settings/github/connect', session, origin, connect(gateway, settings));
  router.get(GITHUB_SETUP_PATH, setup(gateway, settings));
  router.get(GITHUB_CONNECT_CALLBACK_PATH, callback(gateway, settings));
  router.post('/settings/github/refresh', session, origin, refresh(gateway));
  return router;
}

/**
 * At sign-in, what the user reaches through the App is checked again: with the tokens of a GitHub
 * sign-in, else with the catalog's kept refresh token. Never what decides the sign-in: a failure is logged.
 */
export async function recheckGitHubAtSignIn(gateway: Gateway, userId: string, tokens: GitHubUserTokens | undefined): Promise<void> {
  if (!gateway.gitHubConnection) return;
  try {
    if (tokens) await gateway.catalog.connectGitHub(userId, tokens, { timeoutMs: 15_000 });
    else await gateway.catalog.recheckGitHub(userId, { timeoutMs: 15_000 });
  } catch (error) {
    gateway.logger.warn({ err: error, user_id: userId }, 'github access not rechecked at sign-in');
  }
}
