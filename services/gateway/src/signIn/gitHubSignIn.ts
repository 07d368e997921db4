// Sign-in with GitHub: a GitHub App's web flow for user access tokens, as GitHub documents it
// ("Generating a user access token for a GitHub App"): the authorize page with `state` and PKCE
// S256, the code exchanged at the token endpoint (its errors come as HTTP 200 with `error`), then
// the user read with the token (GET /user; a login can change hands, so the user is GitHub's
// numeric id) and who may sign in checked: an active member of one of GITHUB_ALLOWED_ORGS
// (GET /user/memberships/orgs/{org}), unless GITHUB_ALLOW_ANY. The tokens go on to the catalog,
// which rechecks with them what the user reaches through the App (its installations); the gateway
// keeps none of them.
import type { GitHubSignInSettings } from '../config.js';
import { sameText } from '../domain/signIn.js';
import { authorizeUrl, callGitHub, codeOfAnswer, exchangeCode, GITHUB_API_HEADERS, unexpectedAnswer } from '../github/gitHubWebFlow.js';
import { ProviderUnavailable, SignInRefused, type SignInMethod } from './signInMethod.js';

interface GitHubUser {
  id: number;
  login: string;
  name: string | null;
  email: string | null;
}

export function gitHubSignIn(settings: GitHubSignInSettings, redirectUri: string): SignInMethod {
  const api = settings.apiUrl.replace(/\/+$/, '');
  const web = settings.webUrl.replace(/\/+$/, '');
  const asUser = (token: string) => ({ ...GITHUB_API_HEADERS, authorization: `Bearer ${token}` });

  const userOf = async (token: string): Promise<GitHubUser> => {
    const response = await callGitHub(`${api}/user`, { headers: asUser(token) });
    if (!response.ok) throw unexpectedAnswer('GET /user', response);
    const user = (await response.json()) as Partial<GitHubUser>;
    if (typeof user.id !== 'number' || typeof user.login !== 'string') throw new ProviderUnavailable('GitHub answered GET /user without an id');
    return { id: user.id, login: user.login, name: user.name ?? null, email: user.email ?? null };
  };

  /** An active member of one allowed organization (a pending invitation is not membership). */
  const memberOfAllowedOrg = async (token: string): Promise<boolean> => {
    for (const org of settings.allowedOrgs) {
      const response = await callGitHub(`${api}/user/memberships/orgs/${encodeURIComponent(org)}`, { headers: asUser(token) });
      if (response.status === 404 || response.status === 403) continue;
      if (!response.ok) throw unexpectedAnswer(`GET /user/memberships/orgs/${org}`, response);
      const membership = (await response.json()) as { state?: unknown };
      if (membership.state === 'active') return true;
    }
    return false;
  };

  /** The primary verified email (GET /user/emails, when the App may read it), else the public one; none is fine. */
  const emailOf = async (token: string, user: GitHubUser): Promise<string | undefined> => {
    const response = await callGitHub(`${api}/user/emails`, { headers: asUser(token) }).catch(() => undefined);
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
      const { url, state, codeVerifier } = authorizeUrl(settings, redirectUri);
      return { url, attempt: { method: 'github', state, codeVerifier, returnTo } };
    },
    async finish(callbackUrl, attempt) {
      const query = callbackUrl.searchParams;
      if (attempt.method !== 'github' || !sameText(query.get('state') ?? '', attempt.state)) {
        throw new SignInRefused(400, 'This answer does not belong to the sign-in this browser started (its state does not match).', 'state mismatch');
      }
      const code = codeOfAnswer(query);
      const tokens = await exchangeCode(settings, { code, redirectUri, codeVerifier: attempt.codeVerifier });
      const token = tokens.accessToken;
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
        gitHubTokens: tokens,
      };
    },
  };
}
