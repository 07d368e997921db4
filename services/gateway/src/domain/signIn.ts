// The rules of signing a browser in (OpenID Connect, GitHub). No I/O.
import { timingSafeEqual } from 'node:crypto';

/** The cookie that ties a sign-in's answer to the browser that started it (its value: a one-time code). */
export const SIGN_IN_COOKIE = 'ars_sign_in';
/** The cookie lives under the sign-in routes only, and only while a sign-in is under way. */
export const SIGN_IN_COOKIE_PATH = '/auth';
/** How long a started sign-in waits for its answer (the provider's pages, a user typing a password). */
export const SIGN_IN_ATTEMPT_TTL_SECONDS = 600;
/** Where a sign-in without a usable `returnTo` ends. */
export const DEFAULT_RETURN_TO = '/settings';
const MAX_RETURN_TO_LENGTH = 2048;

export const SIGN_IN_PATH = '/auth/sign-in';
export const CALLBACK_PATH = '/auth/callback';
export const SIGN_OUT_PATH = '/auth/sign-out';
export const SIGNED_OUT_PATH = '/auth/signed-out';

/** What a started sign-in keeps until its answer (stored under the SHA-256 of the cookie's code). */
export type SignInAttempt =
  | { method: 'oidc'; state: string; nonce: string; codeVerifier: string; returnTo: string }
  | { method: 'github'; state: string; codeVerifier: string; returnTo: string };

export const SIGN_IN_METHODS = ['oidc', 'github'] as const;
export type SignInMethodName = (typeof SIGN_IN_METHODS)[number];

/** Where a method's answer comes back: OpenID Connect's at the registered `/auth/callback`, GitHub's at its own. */
export function callbackPathOf(method: SignInMethodName): string {
  return method === 'oidc' ? CALLBACK_PATH : `${CALLBACK_PATH}/github`;
}

/** Whether two strings are equal, in a time that does not tell how much of them matched. */
export function sameText(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * `returnTo` as given when it is a path of this gateway (`/…`, not `//host` or `/\host`, no control
 * characters, no scheme); anything else is ignored: the sign-in never redirects off the gateway.
 */
export function returnToOf(raw: unknown): string {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_RETURN_TO_LENGTH) return DEFAULT_RETURN_TO;
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return DEFAULT_RETURN_TO;
  if ([...raw].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f || char === '\\')) return DEFAULT_RETURN_TO;
  // A path that resolves off the origin (`/..//host` and the like) is not one of ours either.
  const resolved = new URL(raw, 'http://gateway.invalid');
  if (resolved.origin !== 'http://gateway.invalid') return DEFAULT_RETURN_TO;
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}

/** The identity claims a sign-in reads (an ID token's, or the userinfo answer's). */
export interface IdentityClaims {
  sub: string;
  email?: unknown;
  email_verified?: unknown;
  name?: unknown;
}

/** Why this identity may not sign in, or undefined when it may: a verified email of an allowed domain, unless any account may. */
export function emailRefusal(claims: IdentityClaims, rule: { allowedEmailDomains: readonly string[]; allowAny: boolean }): string | undefined {
  if (rule.allowAny) return undefined;
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  if (email === '') return 'Your identity provider did not give an email address, and only addresses of allowed domains may sign in.';
  // Only `true` counts (a string "true" is a provider bug we do not trust).
  if (claims.email_verified !== true) return `Your email address ${email} is not verified by your identity provider.`;
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (!rule.allowedEmailDomains.includes(domain)) return `The email address ${email} is not of a domain allowed to sign in here.`;
  return undefined;
}

/** A claim as a short display string (a name or an email), or undefined. */
export function displayClaim(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed.slice(0, 200);
}
