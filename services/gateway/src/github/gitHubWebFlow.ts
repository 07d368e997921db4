// GitHub's web flow for a GitHub App's user access tokens, as GitHub documents it ("Generating a user
// access token for a GitHub App"): the authorize page with `state` and PKCE S256, then the code
// exchanged at the token endpoint, whose errors come as HTTP 200 with `error`. Sign-in with GitHub
// and Connect GitHub both go through it, with the same App client and each its own callback URL.
import { createHash, randomBytes } from 'node:crypto';
import type { GitHubUserTokens } from '@ars/catalog/client';
import { ProviderUnavailable, SignInRefused } from '../signIn/signInMethod.js';

const TIMEOUT_MS = 10_000;
export const GITHUB_API_HEADERS = { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', 'user-agent': 'agent-run-service' };

export interface GitHubAppClient {
  clientId: string;
  clientSecret: string;
  /** GitHub's web host (`https://github.com`, or GitHub Enterprise Server's). */
  webUrl: string;
}

/** What the code exchange gives (the user token and, when the App's tokens expire, the refresh token): what the catalog takes. */
export type { GitHubUserTokens };

/** A fetch to GitHub with a deadline; not reaching it is ProviderUnavailable. */
export async function callGitHub(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    throw new ProviderUnavailable(`GitHub could not be reached at ${new URL(url).origin}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A GitHub answer other than 2xx on a route the flow needs: GitHub's trouble (5xx, rate limit) or a refusal. */
export function unexpectedAnswer(what: string, response: Response): Error {
  if (response.status >= 500 || response.status === 429) return new ProviderUnavailable(`GitHub answered ${response.status} to ${what}`);
  return new SignInRefused(400, `GitHub refused to tell who you are (${what}: HTTP ${response.status}).`, `${what}: ${response.status}`);
}

/** The authorize URL, with a fresh `state` and PKCE verifier (both kept by the caller until the answer). */
export function authorizeUrl(client: GitHubAppClient, redirectUri: string): { url: URL; state: string; codeVerifier: string } {
  const state = randomBytes(32).toString('base64url');
  const codeVerifier = randomBytes(32).toString('base64url');
  const url = new URL(`${client.webUrl.replace(/\/+$/, '')}/login/oauth/authorize`);
  url.searchParams.set('client_id', client.clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', createHash('sha256').update(codeVerifier).digest('base64url'));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('allow_signup', 'false');
  return { url, state, codeVerifier };
}

/** The answer's `error` (access_denied is the user's 403), or its code; throws SignInRefused for either problem. */
export function codeOfAnswer(query: URLSearchParams): string {
  const error = query.get('error');
  if (error !== null) {
    const said = query.get('error_description') ? `: ${query.get('error_description') ?? ''}` : '';
    throw new SignInRefused(error === 'access_denied' ? 403 : 400, `GitHub did not let you sign in (${error}${said}).`, error);
  }
  const code = query.get('code');
  if (!code) throw new SignInRefused(400, 'GitHub sent no sign-in code.', 'no code');
  return code;
}

/** Exchanges the code (with the same redirect URI and the PKCE verifier) for the user's tokens. */
export async function exchangeCode(client: GitHubAppClient, input: { code: string; redirectUri: string; codeVerifier: string }): Promise<GitHubUserTokens> {
  const response = await callGitHub(`${client.webUrl.replace(/\/+$/, '')}/login/oauth/access_token`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json', 'user-agent': GITHUB_API_HEADERS['user-agent'] },
    body: JSON.stringify({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      code: input.code,
      redirect_uri: input.redirectUri,
      code_verifier: input.codeVerifier,
    }),
  });
  if (!response.ok) throw unexpectedAnswer('the code exchange', response);
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (typeof body.error === 'string') {
    const said = typeof body.error_description === 'string' ? `: ${body.error_description}` : '';
    if (body.error === 'bad_verification_code')
      throw new SignInRefused(
        400,
        `GitHub refused the sign-in code (bad_verification_code${said}): it was used already, has expired, or is not this sign-in’s.`,
        body.error,
      );
    throw new SignInRefused(400, `GitHub refused to complete the sign-in (${body.error}${said}).`, body.error);
  }
  if (typeof body.access_token !== 'string') throw new ProviderUnavailable('GitHub answered the code exchange without a token');
  return {
    accessToken: body.access_token,
    refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : null,
    refreshTokenExpiresIn: typeof body.refresh_token_expires_in === 'number' ? body.refresh_token_expires_in : null,
  };
}
