// The settings page of a signed-in browser: who is signed in, the user's personal access tokens
// (create, list, revoke) and sign-out. HTML forms posting to the gateway itself (Origin checked,
// SameSite=Lax session cookie), not framable, no script.
//   GET  /settings                         → the page; a signed-out browser goes to sign-in and back
//   POST /settings/api-keys                → a token minted (mintPersonalAccessToken, as POST /api/settings/api-keys), shown once
//   POST /settings/api-keys/:id/revoke     → revoked, 303 back to /settings; another user's token 404
import { readRawBody, Router, type RouterMiddleware } from '@ars/http-app';
import { SCOPES, type Scope } from '../domain/scopes.js';
import { mintPersonalAccessToken, MAX_EXPIRES_IN_DAYS } from '../http/createPersonalAccessToken.js';
import type { Gateway } from '../deps.js';
import { checkOrigin, requireSession, sessionOf, sessionPrincipalOf } from '../auth/sessionAuth.js';
import { html } from '../http/pageAnswer.js';
import { askToSignIn } from '../signIn/askToSignIn.js';
import { settingsPageHtml, settingsProblemPageHtml, tokenCreatedPageHtml, type SettingsView } from './settingsPage.js';

export const SETTINGS_PATH = '/settings';
const FORM_LIMIT_BYTES = 4096;

function showSettings(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const session = await sessionOf(gateway, ctx);
    if (!session) return askToSignIn(gateway, ctx);
    const [user, tokens, github] = await Promise.all([
      gateway.users.find(session.userId),
      gateway.personalAccessTokens.listForUser(session.userId),
      gitHubViewOf(gateway, session.userId),
    ]);
    html(ctx, 200, settingsPageHtml({ userId: session.userId, name: user?.name, email: user?.email, tokens, now: new Date(), ...(github ? { github } : {}) }));
  };
}

/** The user's GitHub connection for the page (Connect GitHub configured); the page still shows when the catalog cannot say. */
async function gitHubViewOf(gateway: Gateway, userId: string): Promise<SettingsView['github']> {
  if (!gateway.gitHubConnection) return undefined;
  try {
    return { connection: await gateway.catalog.gitHubConnection(userId) };
  } catch (error) {
    gateway.logger.warn({ err: error }, 'github connections not shown on the settings page');
    return 'unavailable';
  }
}

type TokenForm = { ok: true; name: string; scopes: Scope[]; expiresInDays: number } | { ok: false; problem: string };

/** The create form's fields, checked as `POST /api/settings/api-keys` checks its body. */
export function readTokenForm(form: URLSearchParams): TokenForm {
  const name = (form.get('name') ?? '').trim();
  if (name === '' || name.length > 200) return { ok: false, problem: 'A token needs a name of 1 to 200 characters.' };
  const scopes = [...new Set(form.getAll('scopes'))];
  if (scopes.length === 0) return { ok: false, problem: 'Choose at least one scope (read, write).' };
  if (!scopes.every((scope): scope is Scope => (SCOPES as readonly string[]).includes(scope))) return { ok: false, problem: 'The scopes are read and write.' };
  const days = form.get('expiresInDays') ?? '';
  if (!/^\d{1,4}$/.test(days) || Number(days) < 1 || Number(days) > MAX_EXPIRES_IN_DAYS)
    return { ok: false, problem: `A token expires in 1 to ${MAX_EXPIRES_IN_DAYS} days.` };
  return { ok: true, name, scopes, expiresInDays: Number(days) };
}

function createToken(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const { userId } = sessionPrincipalOf(ctx.state);
    const form = readTokenForm(new URLSearchParams(await readRawBody(ctx, FORM_LIMIT_BYTES)));
    if (!form.ok) return html(ctx, 400, settingsProblemPageHtml(form.problem));
    const minted = await mintPersonalAccessToken(gateway, { userId, name: form.name, scopes: form.scopes, expiresInDays: form.expiresInDays });
    html(ctx, 201, tokenCreatedPageHtml(minted, form.name));
  };
}

function revokeToken(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const { userId } = sessionPrincipalOf(ctx.state);
    const token = await gateway.personalAccessTokens.revoke(userId, String(ctx.params.id));
    if (!token) return html(ctx, 404, settingsProblemPageHtml('No such token of yours.'));
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 303;
    ctx.redirect(SETTINGS_PATH);
  };
}

export function settingsRoutes(gateway: Gateway): Router {
  const router = new Router();
  const session = requireSession(gateway, 'Personal access tokens cannot use the settings page; sign in with a browser session');
  const origin = checkOrigin(gateway);
  router.get(SETTINGS_PATH, showSettings(gateway));
  router.post(`${SETTINGS_PATH}/api-keys`, session, origin, createToken(gateway));
  router.post(`${SETTINGS_PATH}/api-keys/:id/revoke`, session, origin, revokeToken(gateway));
  return router;
}
