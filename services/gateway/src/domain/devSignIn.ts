/**
 * Development sign-in links (only outside production): `npm run admin -- dev-account` prints one,
 * and opening it signs that browser in as the new account, so the consent pages (`ars login`'s, an
 * MCP client's) can be answered without copying a cookie by hand. No I/O.
 */

/** The link's page: a browser page, outside `/api`. */
export const DEV_SIGN_IN_PATH = '/dev/sign-in';
/** Long enough to switch to the browser and open it, short enough that a link left in a terminal's scrollback is soon worthless. */
export const DEV_SIGN_IN_TTL_SECONDS = 600;
/** A code is 43 base64url characters; anything much longer is not one and is not looked up. */
const CODE_PATTERN = /^[A-Za-z0-9_-]{20,200}$/;

/** What a sign-in link gives: the user the browser is signed in as. */
export interface DevSignInGrant {
  userId: string;
}

export function devSignInUrl(publicOrigin: string, code: string): string {
  const url = new URL(DEV_SIGN_IN_PATH, publicOrigin);
  url.searchParams.set('code', code);
  return url.href;
}

/** The link's code, when it has the shape of one. */
export function signInCodeOf(raw: unknown): string | undefined {
  return typeof raw === 'string' && CODE_PATTERN.test(raw) ? raw : undefined;
}

/** The one answer for a code that is malformed, unknown, expired or used: the page learns nothing more. */
export const INVALID_SIGN_IN_LINK = 'This sign-in link is invalid, expired or already used.';
