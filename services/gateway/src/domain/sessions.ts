import { createHash, randomBytes } from 'node:crypto';

/** The browser session cookie (HttpOnly, SameSite=Lax, Secure when served over TLS). */
export const SESSION_COOKIE = 'ars_session';
export const DEFAULT_SESSION_TTL_SECONDS = 7 * 24 * 3600;

/** 32 random bytes from the CSPRNG; only its SHA-256 is stored. */
export function generateSessionId(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSessionId(sessionId: string): string {
  return createHash('sha256').update(sessionId, 'utf8').digest('hex');
}

export function isWellFormedSessionId(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}

export interface CookieOptions {
  maxAgeSeconds: number;
  secure: boolean;
  /** Default `/`. */
  path?: string;
}

/** A `Set-Cookie` value of the gateway's cookies: HttpOnly, SameSite=Lax, Secure over TLS (`maxAgeSeconds: 0` clears it). */
export function cookieHeader(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${value}`, `Path=${options.path ?? '/'}`, `Max-Age=${options.maxAgeSeconds}`, 'HttpOnly', 'SameSite=Lax'];
  if (options.maxAgeSeconds === 0) parts.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}

/** The `Set-Cookie` value for a session (`maxAgeSeconds: 0` clears it). */
export function sessionCookieHeader(value: string, options: CookieOptions): string {
  return cookieHeader(SESSION_COOKIE, value, options);
}

/** The value of cookie `name` in a `Cookie` header, if any. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const index = pair.indexOf('=');
    if (index < 0) continue;
    if (pair.slice(0, index).trim() === name) return pair.slice(index + 1).trim();
  }
  return undefined;
}

/** The session id from a `Cookie` header, if any. */
export function sessionIdFromCookieHeader(header: string | undefined): string | undefined {
  return cookieValue(header, SESSION_COOKIE);
}

/**
 * Cross-site request forgery guard of mutating session routes. A browser sends `Origin` on every
 * POST/PUT/DELETE: when present it must be the gateway's public origin exactly (`null` never is).
 * Without `Origin`, a `Sec-Fetch-Site` other than `same-origin`/`none` is refused too; a request with
 * neither comes from a non-browser client (curl, the admin command), which no forged page can drive.
 */
export function originProblem(headers: { origin?: string; secFetchSite?: string }, publicOrigin: string): string | undefined {
  if (headers.origin !== undefined && headers.origin !== '') {
    return headers.origin === publicOrigin ? undefined : `Origin ${headers.origin} is not allowed; requests must come from ${publicOrigin}`;
  }
  const site = headers.secFetchSite;
  if (site !== undefined && site !== '' && site !== 'same-origin' && site !== 'none') {
    return `Cross-site request refused (Sec-Fetch-Site: ${site}); requests must come from ${publicOrigin}`;
  }
  return undefined;
}
