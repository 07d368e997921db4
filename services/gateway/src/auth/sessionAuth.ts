import { AppError } from '@ars/errors';
import type { Context, Middleware } from '@ars/http-app';
import {
  generateSessionId,
  hashSessionId,
  isWellFormedSessionId,
  originProblem,
  sessionCookieHeader,
  sessionIdFromCookieHeader,
  SESSION_COOKIE,
} from '../domain/sessions.js';
import type { Gateway } from '../deps.js';
import type { SessionPrincipal } from './state.js';

/**
 * Served over TLS: the socket is TLS, or (only with `TRUST_PROXY=true`) the proxy in front says
 * `X-Forwarded-Proto: https` (its first value). Then the session cookie is `Secure`.
 */
export function servedOverTls(gateway: Gateway, ctx: Context): boolean {
  if ((ctx.req.socket as { encrypted?: boolean }).encrypted) return true;
  if (!gateway.config.TRUST_PROXY) return false;
  return ctx.get('X-Forwarded-Proto').split(',')[0]?.trim().toLowerCase() === 'https';
}

/** Creates a session for the user and sets its cookie; returns `<name>=<value>` for non-browser callers. */
export async function startSession(gateway: Gateway, ctx: Context, userId: string, signIn?: { idToken: string }): Promise<string> {
  const sessionId = generateSessionId();
  await gateway.browserSessions.create(hashSessionId(sessionId), userId, gateway.config.SESSION_TTL_SECONDS, signIn);
  ctx.append('Set-Cookie', sessionCookieHeader(sessionId, { maxAgeSeconds: gateway.config.SESSION_TTL_SECONDS, secure: servedOverTls(gateway, ctx) }));
  return `${SESSION_COOKIE}=${sessionId}`;
}

export function clearSessionCookie(gateway: Gateway, ctx: Context): void {
  ctx.append('Set-Cookie', sessionCookieHeader('', { maxAgeSeconds: 0, secure: servedOverTls(gateway, ctx) }));
}

/** The live session of the request's cookie, if any. */
export async function sessionOf(gateway: Gateway, ctx: Context): Promise<SessionPrincipal | undefined> {
  const sessionId = sessionIdFromCookieHeader(ctx.get('Cookie') || undefined);
  if (!sessionId || !isWellFormedSessionId(sessionId)) return undefined;
  const idHash = hashSessionId(sessionId);
  const session = await gateway.browserSessions.find(idHash);
  return session ? { userId: session.userId, idHash, expiresAt: session.expiresAt, ...(session.idToken ? { idToken: session.idToken } : {}) } : undefined;
}

const PAT_REFUSED = 'Personal access tokens cannot manage personal access tokens; sign in with a browser session';

/**
 * Session-only routes: a bearer PAT is 403 (PATs cannot issue PATs; `patRefusal` says what else they
 * cannot do); no live session is 401.
 */
export function requireSession(gateway: Gateway, patRefusal = PAT_REFUSED): Middleware {
  return async (ctx, next) => {
    if (/^Bearer\b/i.test(ctx.get('Authorization'))) {
      throw AppError.forbidden(patRefusal);
    }
    const session = await sessionOf(gateway, ctx);
    if (!session) throw AppError.unauthorized('No valid session; sign in again');
    ctx.state.session = session;
    await next();
  };
}

/** Mutating session routes: `Origin` must be the gateway's public origin (see `originProblem`). */
export function checkOrigin(gateway: Gateway): Middleware {
  return async (ctx, next) => {
    const problem = originProblem({ origin: ctx.get('Origin') || undefined, secFetchSite: ctx.get('Sec-Fetch-Site') || undefined }, gateway.publicOrigin);
    if (problem) throw AppError.forbidden(problem);
    await next();
  };
}

export function sessionPrincipalOf(state: { session?: SessionPrincipal }): SessionPrincipal {
  if (!state.session) throw AppError.internal('route reached without a session');
  return state.session;
}
