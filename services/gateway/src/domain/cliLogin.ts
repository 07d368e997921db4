import { createHash } from 'node:crypto';
import { SCOPES, type Scope } from './scopes.js';

/**
 * The command line's browser login (README, "CLI login"): the rules of its consent request, its
 * one-time code and PKCE. No I/O.
 */

/** A code lives this long: the browser hands it to the listener at once, and the CLI exchanges it at once. */
export const CLI_LOGIN_CODE_TTL_SECONDS = 60;
/** What the page shows of the client's self-chosen name (it is a claim, never an identity). */
export const CLIENT_NAME_MAX_LENGTH = 60;
export const DEFAULT_CLIENT_NAME = 'ars';

/** The listener of the CLI on this machine: loopback over http, an explicit port, the path `/callback`, nothing else. */
const REDIRECT_URI_PATTERN = /^http:\/\/(127\.0\.0\.1|localhost):([1-9][0-9]{0,4})\/callback$/;
/** `state`: an opaque nonce of the CLI, echoed back; bounded so it cannot bloat the redirect. */
const STATE_PATTERN = /^[A-Za-z0-9._~-]{8,200}$/;
/** RFC 7636: an S256 challenge is the base64url SHA-256 of the verifier, 43 characters. */
const CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** RFC 7636 4.1: the verifier is 43–128 unreserved characters. */
const VERIFIER_PATTERN = /^[A-Za-z0-9._~-]{43,128}$/;

export interface CliLoginRequest {
  redirectUri: string;
  state: string;
  codeChallenge: string;
  scopes: Scope[];
  clientName: string;
}

/** What a login code gives its exchange (a one-time code's grant, store/oneTimeCodes.ts): the PAT's owner and scopes, and what the exchange must match. */
export interface CliLoginGrant {
  userId: string;
  scopes: Scope[];
  codeChallenge: string;
  redirectUri: string;
  clientName: string;
}

export type CliLoginParsed = { ok: true; request: CliLoginRequest } | { ok: false; problem: string };

export function isLoopbackRedirectUri(value: string): boolean {
  const match = REDIRECT_URI_PATTERN.exec(value);
  return match !== null && Number(match[2]) <= 65_535;
}

/** `read,write` (commas or spaces); absent or empty asks for both. Unknown scopes are refused, not dropped. */
function parseScopes(raw: string | undefined): Scope[] | undefined {
  if (raw === undefined || raw.trim() === '') return [...SCOPES];
  const asked = new Set(raw.split(/[,\s]+/).filter((s) => s !== ''));
  if ([...asked].some((s) => !(SCOPES as readonly string[]).includes(s))) return undefined;
  return SCOPES.filter((s) => asked.has(s));
}

/** The client's name as the page shows it: control characters out, whitespace folded, capped. */
function displayClientName(raw: string | undefined): string {
  const cleaned = (raw ?? '')
    .replace(/\p{Cc}/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (cleaned === '') return DEFAULT_CLIENT_NAME;
  const chars = [...cleaned];
  return chars.length > CLIENT_NAME_MAX_LENGTH ? `${chars.slice(0, CLIENT_NAME_MAX_LENGTH - 1).join('')}…` : cleaned;
}

/**
 * Every parameter of `GET /cli/login` (and of the form posted back) checked. The redirect URI is
 * checked first: nothing is ever sent to one that is not the CLI's loopback listener.
 */
export function parseCliLoginRequest(params: (name: string) => string | undefined): CliLoginParsed {
  const redirectUri = params('redirect_uri');
  if (!redirectUri || !isLoopbackRedirectUri(redirectUri)) {
    return { ok: false, problem: 'redirect_uri must be http://127.0.0.1:<port>/callback or http://localhost:<port>/callback' };
  }
  const state = params('state');
  if (!state || !STATE_PATTERN.test(state)) return { ok: false, problem: 'state must be 8 to 200 URL-safe characters' };
  if (params('code_challenge_method') !== 'S256') return { ok: false, problem: 'code_challenge_method must be S256' };
  const codeChallenge = params('code_challenge');
  if (!codeChallenge || !CHALLENGE_PATTERN.test(codeChallenge)) {
    return { ok: false, problem: 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters)' };
  }
  const scopes = parseScopes(params('scopes'));
  if (!scopes || scopes.length === 0) return { ok: false, problem: 'scopes must be read, write or read,write' };
  return { ok: true, request: { redirectUri, state, codeChallenge, scopes, clientName: displayClientName(params('client_name')) } };
}

/** RFC 7636 S256: BASE64URL(SHA256(verifier)) equals the challenge. */
export function verifierMatches(codeVerifier: string, codeChallenge: string): boolean {
  if (!VERIFIER_PATTERN.test(codeVerifier)) return false;
  return createHash('sha256').update(codeVerifier, 'ascii').digest('base64url') === codeChallenge;
}

/** The PAT's name in the user's list of keys, so the user knows where it came from. */
export function cliTokenName(clientName: string): string {
  return `ars CLI (${clientName})`;
}

/** Where the browser goes after the answer: the validated redirect URI with the code or the error, and the state. */
export function callbackUrl(request: Pick<CliLoginRequest, 'redirectUri' | 'state'>, answer: { code: string } | { error: 'access_denied' }): string {
  const url = new URL(request.redirectUri);
  if ('code' in answer) url.searchParams.set('code', answer.code);
  else url.searchParams.set('error', answer.error);
  url.searchParams.set('state', request.state);
  return url.href;
}

/** The token exchange's failures all read alike: a caller learns nothing about which part was wrong beyond the field. */
export const INVALID_LOGIN_CODE = 'Invalid, expired or already used login code';

/** The window of login code exchanges from one client address (one minute, `CLI_TOKEN_EXCHANGES_PER_MINUTE`): a code has 256 bits, so this only keeps a flood off MongoDB. */
export function tokenExchangeWindow(address: string, perMinute: number): { key: string; limit: number; windowMs: number } {
  return { key: `rl:cli-login:${address}`, limit: perMinute, windowMs: 60_000 };
}
