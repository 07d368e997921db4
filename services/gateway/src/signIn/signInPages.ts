// The sign-in's pages: server-rendered, no script, in the gateway's one frame (oauth/consentPage.ts).
import { escapeHtml, page } from '../oauth/consentPage.js';
import { SIGN_IN_PATH } from '../domain/signIn.js';
import type { SignInMethod } from './signInMethod.js';

/** A refused or failed sign-in: what went wrong, and a way to start again (never an automatic redirect into a new sign-in). */
export function signInFailedPageHtml(reason: string): string {
  return page(
    'Sign-in refused',
    `<h1>Sign-in refused</h1>
<p id="reason">${escapeHtml(reason)}</p>
<p>Nothing was changed. <a href="${SIGN_IN_PATH}">Sign in again</a> when you are ready.</p>`,
  );
}

/** The identity provider could not be reached: nothing was changed, the user may try again. */
export function providerUnavailablePageHtml(): string {
  return page(
    'Sign-in unavailable',
    `<h1>Sign-in is unavailable right now</h1>
<p id="reason">The identity provider could not be reached. Nothing was changed; <a href="${SIGN_IN_PATH}">try again</a> in a moment.</p>`,
  );
}

/** No sign-in method is configured (development): where a session comes from instead. */
export function noSignInMethodPageHtml(): string {
  return page(
    'No sign-in method',
    `<h1>No sign-in method is configured</h1>
<p>This deployment has no identity provider (<code>OIDC_ISSUER</code>). In development, a session comes from a development account:
run <code>npm run admin -- dev-account</code> and open the <code>signInUrl</code> it prints in this browser.</p>`,
  );
}

/** After sign-out (also where the identity provider's sign-out returns). */
export function signedOutPageHtml(): string {
  return page(
    'Signed out',
    `<h1>Signed out</h1>
<p>This browser is no longer signed in to the Agent Run Service. <a href="${SIGN_IN_PATH}">Sign in again</a>.</p>`,
  );
}

/** Two ways to sign in: the user chooses (each link keeps where to come back to). */
export function chooserPageHtml(methods: readonly SignInMethod[], returnTo: string): string {
  const links = methods
    .map(
      (method) =>
        `<li><a id="sign-in-${method.method}" href="${SIGN_IN_PATH}/${method.method}?returnTo=${encodeURIComponent(returnTo)}">Sign in with ${escapeHtml(method.label)}</a></li>`,
    )
    .join('');
  return page('Sign in', `<h1>Sign in to the Agent Run Service</h1><ul>${links}</ul>`);
}
