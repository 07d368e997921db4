import type { IncomingMessage } from 'node:http';
import { AppError } from '@ars/errors';
import { readRawBody, Router, type Context, type MountableRouter, type Middleware, type RouterMiddleware } from '@ars/http-app';
import {
  inferredApplicationType,
  MCP_SCOPES,
  OAUTH_PREFIX,
  PROTECTED_RESOURCE_METADATA_PATH,
  protectedResourceMetadata,
  registrationWindow,
  registrationProblem,
} from '../domain/oauthClients.js';
import type { Gateway } from '../deps.js';
import { checkOrigin, sessionOf } from '../auth/sessionAuth.js';
import { RETRY_AFTER_SECONDS } from '../domain/limits.js';
import { consentPageHtml, expiredPageHtml, signInPageHtml, type ConsentView } from './consentPage.js';
import { html } from '../http/pageAnswer.js';
import { askToSignIn } from '../signIn/askToSignIn.js';

type ProviderRequest = IncomingMessage & { originalUrl?: string; body?: unknown };

/** Every path the authorization server answers: its own under `/oauth`, and the path-inserted metadata URLs. */
export function isOAuthPath(path: string): boolean {
  return path === OAUTH_PREFIX || path.startsWith(`${OAUTH_PREFIX}/`) || path.startsWith('/.well-known/');
}

/**
 * Hands the request to `oidc-provider` (a Koa app of its own) as if mounted at `/oauth`: its URL
 * without the prefix, the original one kept so the URLs it writes carry the prefix. `url` is what
 * it should see (RFC 8414's path-inserted metadata URL is served by its own discovery route).
 */
async function handOver(gateway: Gateway, ctx: Context, url = ctx.req.url?.slice(OAUTH_PREFIX.length) || '/'): Promise<void> {
  const req = ctx.req as ProviderRequest;
  const received = req.url;
  req.originalUrl = `${OAUTH_PREFIX}${url}`;
  req.url = url;
  ctx.respond = false;
  try {
    await gateway.oauthCallback(req, ctx.res);
  } finally {
    req.url = received;
  }
  ctx.status = ctx.res.statusCode;
}

/** Registration: rate limited per client address, at most 10 redirect URIs, and native clients recognised. */
async function register(gateway: Gateway, ctx: Context): Promise<void> {
  const perHour = gateway.config.OAUTH_REGISTRATIONS_PER_HOUR;
  const windows = [registrationWindow(ctx.ip, perHour)];
  let allowed: boolean;
  try {
    allowed = (await gateway.limiter.consume(windows)).allowed;
  } catch (error) {
    gateway.logger.warn({ err: error }, 'rate-limit backend unavailable');
    throw AppError.unavailable('Rate-limit backend unavailable; retry later', RETRY_AFTER_SECONDS);
  }
  if (!allowed) {
    ctx.set('Retry-After', String(RETRY_AFTER_SECONDS));
    return oauthError(ctx, 429, 'too_many_requests', `at most ${perHour} client registrations per hour from one address`);
  }
  let body: unknown;
  try {
    body = JSON.parse(await readRawBody(ctx, 56 * 1024));
  } catch {
    return oauthError(ctx, 400, 'invalid_client_metadata', 'the registration body must be JSON');
  }
  const problem = registrationProblem(body);
  if (problem) return oauthError(ctx, 400, 'invalid_client_metadata', problem);
  const metadata = body as Record<string, unknown>;
  if (metadata.application_type === undefined && Array.isArray(metadata.redirect_uris)) {
    metadata.application_type = inferredApplicationType(metadata.redirect_uris);
  }
  (ctx.req as ProviderRequest).body = metadata;
  await handOver(gateway, ctx);
}

function oauthError(ctx: Context, status: number, error: string, description: string): void {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error, error_description: description };
}

/** A request without `scope` asks for what a PAT can have: `read write`. */
function withDefaultScope(ctx: Context): void {
  const url = new URL(ctx.req.url ?? '/', 'http://gateway');
  if (url.searchParams.get('scope')) return;
  url.searchParams.set('scope', MCP_SCOPES.join(' '));
  ctx.req.url = `${url.pathname}${url.search}`;
}

/** The authorization request behind the page, or undefined when it expired or its cookie is missing. */
async function interactionOf(gateway: Gateway, ctx: Context) {
  try {
    const details = await gateway.oauth.provider.interactionDetails(ctx.req, ctx.res);
    return details.uid === ctx.params.uid ? details : undefined;
  } catch {
    return undefined;
  }
}

function requestedScopes(scope: unknown): string[] {
  const asked = new Set(typeof scope === 'string' ? scope.split(' ') : []);
  return MCP_SCOPES.filter((s) => asked.has(s));
}

async function consentView(gateway: Gateway, uid: string, params: Record<string, unknown>): Promise<ConsentView> {
  const clientId = String(params.client_id ?? '');
  const client = await gateway.oauth.provider.Client.find(clientId);
  const name = typeof client?.clientName === 'string' ? client.clientName : undefined;
  // A metadata-document client is known by where its document lives; its name is only its claim.
  const isUrlClient = /^https:\/\//.test(clientId);
  return {
    uid,
    clientLabel: isUrlClient ? new URL(clientId).host : (name ?? clientId),
    claimedName: isUrlClient ? name : undefined,
    redirectUri: typeof params.redirect_uri === 'string' ? params.redirect_uri : undefined,
    scopes: requestedScopes(params.scope),
  };
}

function showConsent(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const details = await interactionOf(gateway, ctx);
    if (!details) return html(ctx, 400, expiredPageHtml());
    if (!(await sessionOf(gateway, ctx))) return askToSignIn(gateway, ctx);
    html(ctx, 200, consentPageHtml(await consentView(gateway, details.uid, details.params)));
  };
}

/** Allow: a grant of the asked scopes on the MCP resource, for the signed-in user; Deny: `access_denied`. Either way back to the client. */
function decideConsent(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const details = await interactionOf(gateway, ctx);
    if (!details) return html(ctx, 400, expiredPageHtml());
    const session = await sessionOf(gateway, ctx);
    if (!session) return html(ctx, 401, signInPageHtml(gateway.publicOrigin, gateway.production));
    const decision = new URLSearchParams(await readRawBody(ctx, 4096)).get('decision');
    if (decision !== 'allow' && decision !== 'deny') throw AppError.badRequest('decision must be allow or deny');
    const { provider, mcpResource } = gateway.oauth;
    let result: Record<string, unknown>;
    if (decision === 'deny') {
      result = { error: 'access_denied', error_description: 'The user denied access' };
    } else {
      const grant = new provider.Grant({ accountId: session.userId, clientId: String(details.params.client_id) });
      const scopes = requestedScopes(details.params.scope);
      if (scopes.length > 0) {
        // The scopes are the MCP resource's, and also listed by the server (so a registration may name them): granted as both.
        grant.addResourceScope(mcpResource, scopes.join(' '));
        grant.addOIDCScope(scopes.join(' '));
      }
      if (
        String(details.params.scope ?? '')
          .split(' ')
          .includes('offline_access')
      )
        grant.addOIDCScope('offline_access');
      result = { login: { accountId: session.userId }, consent: { grantId: await grant.save() } };
    }
    const redirectTo = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: false });
    ctx.status = 303;
    ctx.redirect(redirectTo);
  };
}

/**
 * The OAuth 2.1 authorization server's HTTP surface: RFC 9728 metadata of the MCP resource, RFC 8414
 * metadata at the path-inserted URLs, the consent page on the browser session, and everything under
 * `/oauth` handed to `oidc-provider` (authorization, token, registration, revocation, JWKS).
 */
export function oauthRoutes(gateway: Gateway): MountableRouter {
  const router = new Router();
  const resourceMetadata: RouterMiddleware = (ctx) => {
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.body = protectedResourceMetadata(gateway.publicOrigin);
  };
  router.get(PROTECTED_RESOURCE_METADATA_PATH, resourceMetadata);
  router.get('/.well-known/oauth-protected-resource', resourceMetadata);
  router.get(`/.well-known/oauth-authorization-server${OAUTH_PREFIX}`, (ctx) => handOver(gateway, ctx, '/.well-known/oauth-authorization-server'));
  router.get(`/.well-known/openid-configuration${OAUTH_PREFIX}`, (ctx) => handOver(gateway, ctx, '/.well-known/openid-configuration'));
  router.get(`${OAUTH_PREFIX}/consent/:uid`, showConsent(gateway));
  router.post(`${OAUTH_PREFIX}/consent/:uid`, checkOrigin(gateway) as RouterMiddleware, decideConsent(gateway));
  router.post(`${OAUTH_PREFIX}/reg`, (ctx) => register(gateway, ctx));
  router.get(`${OAUTH_PREFIX}/auth`, (ctx) => {
    withDefaultScope(ctx);
    return handOver(gateway, ctx);
  });
  const routes = router.routes() as Middleware;
  const rest: Middleware = async (ctx, next) => {
    if (ctx.path === OAUTH_PREFIX || ctx.path.startsWith(`${OAUTH_PREFIX}/`)) return handOver(gateway, ctx);
    await next();
  };
  return {
    routes: () => (ctx, next) => routes(ctx, () => rest(ctx, next)),
    allowedMethods: () => router.allowedMethods() as Middleware,
  };
}
