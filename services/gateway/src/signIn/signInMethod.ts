// What every way of signing in gives the routes (signInRoutes.ts): where to send the browser, and
// from the answer it comes back with, who signed in, or why not.
import type { SignInAttempt } from '../domain/signIn.js';
import type { GitHubUserTokens } from '../github/gitHubWebFlow.js';
import type { UserIdentity } from '../store/users.js';

/** A sign-in the callback refuses: the page says `reason`; nothing is created. */
export class SignInRefused extends Error {
  constructor(
    readonly status: 400 | 403,
    readonly reason: string,
    readonly detail: string,
  ) {
    super(reason);
  }
}

/** The identity provider could not be reached or answered nonsense: the sign-in can be tried again. */
export class ProviderUnavailable extends Error {}

export interface StartedSignIn {
  /** Where the browser goes: the provider's authorization page. */
  url: URL;
  attempt: SignInAttempt;
}

/** Who signed in, once the provider's answer passed every check and the method's rule of who may sign in. */
export interface SignedIn {
  identity: UserIdentity;
  email: string | undefined;
  name: string | undefined;
  /** OpenID Connect: the ID token, the provider's sign-out hint. */
  idToken?: string;
  /** GitHub: the user's App tokens, with which the catalog checks what the user reaches (secrets: handed on, never kept here). */
  gitHubTokens?: GitHubUserTokens;
}

export interface SignInMethod {
  readonly method: SignInAttempt['method'];
  /** How the chooser names it ("your company account", "GitHub"). */
  readonly label: string;
  begin(returnTo: string): Promise<StartedSignIn>;
  /** Checks the callback as its attempt expects; throws SignInRefused or ProviderUnavailable. */
  finish(callbackUrl: URL, attempt: SignInAttempt): Promise<SignedIn>;
  /** The provider's end-session URL (returning to `postLogoutRedirectUri`), when it offers one. */
  endSessionUrl?(idToken: string | undefined, postLogoutRedirectUri: string): Promise<URL | undefined>;
}
