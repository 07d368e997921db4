// Sign-in with GitHub: a GitHub App's web flow for user access tokens, as GitHub documents it
// ("Generating a user access token for a GitHub App"): the authorize page with `state` and PKCE
// S256, the code exchanged at the token endpoint (its errors come as HTTP 200 with `error`), then
// the user read with the token (GET /user; a login can change hands, so the user is GitHub's
// numeric id) and who may sign in checked: an active member of one of GITHUB_ALLOWED_ORGS
// (GET /user/memberships/orgs/{org}), unless GITHUB_ALLOW_ANY. The token is used for the sign-in
// and not kept.
import type { GitHubSignInSettings } from '../config.js';
import { sameText, type SignInAttempt } from '../domain/signIn.js';
import { ProviderUnavailable, SignInRefused, type SignInMethod } from './signInMethod.js';
import { createHash, randomBytes } from 'node:crypto';

const TIMEOUT_MS = 10_000;
const API_HEADERS = { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', 'user-agent': 'agent-run-service' };

interface GitHubUser {
  id: number;
  login: string;
  name: string | null;
  email: string | null;
}

async function call(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    throw new ProviderUnavailable(`GitHub could not be reached at ${new URL(url).origin}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A GitHub answer other than 2xx on a route the sign-in needs: GitHub's trouble (5xx, rate limit) or a refused token. */
function unexpected(what: string, response: Response): Error {
  if (response.status >= 500 || response.status === 429) return new ProviderUnavailable(`GitHub answered ${response.status} to ${what}`);
  return new SignInRefused(400, `GitHub refused to tell who you are (${what}: HTTP ${response.status}).`, `${what}: ${response.status}`);
}

export function gitHubSignIn(settings: GitHubSignInSettings, redirectUri: string): SignInMethod {
  const api = settings.apiUrl.replace(/\/+$/, '');
  const web = settings.webUrl.replace(/\/+$/, '');
  const asUser = (token: string) => ({ ...API_HEADERS, authorization: `Bearer ${token}` });

  const exchange = async (code: string, attempt: SignInAttempt): Promise<string> => {
    const response = await call(`${web}/login/oauth/access_token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', 'user-agent': API_HEADERS['user-agent'] },
      body: JSON.stringify({
        client_id: settings.clientId,
        client_secret: settings.clientSecret,
        code,
        redirect_uri: redirectUri,
        code_verifier: attempt.codeVerifier,
      }),
    });
    if (!response.ok) throw unexpected('the code exchange', response);
    const body = (await response.json().catch(() => ({}))) as { access_token?: unknown; error?: unknown; error_description?: unknown };
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
    return body.access_token;
  };

  const userOf = async (token: string): Promise<GitHubUser> => {
    const response = await call(`${api}/user`, { headers: asUser(token) });
    if (!response.ok) throw unexpected('GET /user', response);
    const user = (await response.json()) as Partial<GitHubUser>;
    if (typeof user.id !== 'number' || typeof user.login !== 'string') throw new ProviderUnavailable('GitHub answered GET /user without an id');
    return { id: user.id, login: user.login, name: user.name ?? null, email: user.email ?? null };
  };

  /** An active member of one allowed organization (a pending invitation is not membership). */
  const memberOfAllowedOrg = async (token: string): Promise<boolean> => {
    for (const org of settings.allowedOrgs) {
      const response = await call(`${api}/user/memberships/orgs/${encodeURIComponent(org)}`, { headers: asUser(token) });
      if (response.status === 404 || response.status === 403) continue;
      if (!response.ok) throw unexpected(`GET /user/memberships/orgs/${org}`, response);
      const membership = (await response.json()) as { state?: unknown };
      if (membership.state === 'active') return true;
    }
    return false;
  };

  /** The primary verified email (GET /user/emails, when the App may read it), else the public one; none is fine. */
  const emailOf = async (token: string, user: GitHubUser): Promise<string | undefined> => {
    const response = await call(`${api}/user/emails`, { headers: asUser(token) }).catch(() => undefined);
    if (response?.ok) {
      const emails = (await response.json().catch(() => [])) as { email?: unknown; primary?: unknown; verified?: unknown }[];
      const primary = Array.isArray(emails) ? emails.find((entry) => entry.primary === true && entry.verified === true) : undefined;
      if (typeof primary?.email === 'string') return primary.email.toLowerCase();
    }
    return user.email?.toLowerCase() ?? undefined;
  };

  return {
    method: 'github',
    label: 'GitHub',
    async begin(returnTo) {
      const state = randomBytes(32).toString('base64url');
      const codeVerifier = randomBytes(32).toString('base64url');
      const url = new URL(`${web}/login/oauth/authorize`);
      url.searchParams.set('client_id', settings.clientId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('state', state);
      url.searchParams.set('code_challenge', createHash('sha256').update(codeVerifier).digest('base64url'));
      url.searchParams.set('code_challenge_method', 'S256');
      url.searchParams.set('allow_signup', 'false');
      return { url, attempt: { method: 'github', state, codeVerifier, returnTo } };
    },
    async finish(callbackUrl, attempt) {
      const query = callbackUrl.searchParams;
      if (attempt.method !== 'github' || !sameText(query.get('state') ?? '', attempt.state)) {
        throw new SignInRefused(400, 'This answer does not belong to the sign-in this browser started (its state does not match).', 'state mismatch');
      }
      const error = query.get('error');
      if (error !== null) {
        const said = query.get('error_description') ? `: ${query.get('error_description') ?? ''}` : '';
        throw new SignInRefused(error === 'access_denied' ? 403 : 400, `GitHub did not let you sign in (${error}${said}).`, error);
      }
      const code = query.get('code');
      if (!code) throw new SignInRefused(400, 'GitHub sent no sign-in code.', 'no code');
      const token = await exchange(code, attempt);
      const user = await userOf(token);
      if (!settings.allowAny && !(await memberOfAllowedOrg(token))) {
        throw new SignInRefused(
          403,
          `Your GitHub account @${user.login} is not an active member of an organization allowed to sign in here (${settings.allowedOrgs.join(', ') || 'none'}).`,
          `github user ${user.id} not in allowed orgs`,
        );
      }
      return {
        identity: { method: 'github', issuer: web, subject: String(user.id) },
        email: await emailOf(token, user),
        name: user.name?.trim() || user.login,
      };
    },
  };
}
