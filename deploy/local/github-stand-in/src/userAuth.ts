// GitHub's side of "Sign in with GitHub" for a GitHub App, written from GitHub's documentation
// ("Generating a user access token for a GitHub App", "Authorizing OAuth apps", the REST pages of
// GET /user, /user/emails, /user/memberships/orgs/{org}): the web flow's authorize page and code
// exchange (PKCE S256 as GitHub has accepted it since July 2025), user access tokens (`ghu_…`,
// 8 hours, with a refresh token), and the user routes a sign-in reads. The "browser's GitHub
// session" is a cookie of this server (`gh_user`) set by its own sign-in form: the first time a
// user authorizes the App they are asked, later the redirect is immediate, as on GitHub.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export interface StandInUser {
  id: number;
  login: string;
  name?: string | null;
  /** The public email of `GET /user` (null: kept private). */
  email?: string | null;
  /** `GET /user/emails` (default: the public email, primary and verified). */
  emails?: { email: string; primary: boolean; verified: boolean; visibility: 'public' | 'private' | null }[];
  /** Organization memberships by org login. */
  orgs?: Record<string, { role: 'admin' | 'member'; state: 'active' | 'pending' }>;
}

/** The App's OAuth credentials and its registered callback URLs (the redirect URI must be one exactly). */
export interface StandInOAuthApp {
  clientId: string;
  clientSecret: string;
  callbackUrls: string[];
  /** The App's name on the authorize page. */
  name?: string;
}

export interface UserAuthAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface PendingCode {
  login: string;
  redirectUri: string | null;
  challenge: string | null;
  expiresAt: number;
}

interface UserToken {
  token: string;
  refreshToken: string;
  login: string;
  expiresAt: number;
  revoked: boolean;
}

const DOCS = 'https://docs.github.com/rest';
const CODE_TTL_MS = 10 * 60_000;
const TOKEN_TTL_SECONDS = 28_800;
const REFRESH_TTL_SECONDS = 15_811_200;
const USER_COOKIE = 'gh_user';

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
const page = (title: string, body: string): UserAuthAnswer => ({
  status: 200,
  body: `<!doctype html><html><head><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`,
  headers: { 'content-type': 'text/html; charset=utf-8' },
});
const redirect = (location: string, headers: Record<string, string> = {}): UserAuthAnswer => ({ status: 302, body: '', headers: { location, ...headers } });
const badCredentials = (): UserAuthAnswer => ({ status: 401, body: { message: 'Bad credentials', documentation_url: DOCS, status: '401' } });
const notFound = (): UserAuthAnswer => ({ status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } });

/** The token endpoint's errors: HTTP 200 with `error` (GitHub's web flow), as its documentation shows them. */
const tokenError = (error: string, description: string): UserAuthAnswer => ({
  status: 200,
  body: {
    error,
    error_description: description,
    error_uri: `https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#${error.replace(/_/g, '-')}`,
  },
});

function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const pair of (req.headers.cookie ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return decodeURIComponent(pair.slice(at + 1).trim());
  }
  return undefined;
}

async function formOrJson(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim().startsWith('{')) {
    try {
      return Object.fromEntries(Object.entries(JSON.parse(text) as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

export interface UserAuth {
  /** Answers the web flow and user routes; undefined for any other path. */
  handle(req: IncomingMessage, url: URL): Promise<UserAuthAnswer | undefined>;
  addUser(user: StandInUser): void;
  /** User access tokens minted, in order (refreshes included). */
  userTokens(): { login: string; token: string }[];
  /**
   * What the web flow ends in, without a browser: the user has authorized the App and the code was
   * exchanged. Answers the token endpoint's fields (a test hands them to whoever the gateway would).
   */
  authorizeUser(login: string): { accessToken: string; refreshToken: string; refreshTokenExpiresIn: number };
  /** The token stops working at once (GitHub answers 401 Bad credentials). */
  revokeUserTokens(login: string): void;
  /** The App's authorization by the user is forgotten: the next authorize asks again. */
  forgetAuthorization(login: string): void;
  /** The user of a valid user access token (`Authorization: token|bearer ghu_…`). */
  userOfToken(authorization: string | undefined): StandInUser | undefined;
  /** GitHub's answer to a user route called without a valid user token (401, or 403 for an installation token). */
  refusal(authorization: string | undefined): UserAuthAnswer;
  /** The browser's GitHub user (the `gh_user` cookie of the sign-in form). */
  browserUser(req: IncomingMessage): StandInUser | undefined;
  /** The sign-in form, which comes back to `returnTo` (a path of this server). */
  signInPage(returnTo: string): UserAuthAnswer;
}

const tokenAnswer = (token: UserToken): UserAuthAnswer => ({
  status: 200,
  body: {
    access_token: token.token,
    expires_in: TOKEN_TTL_SECONDS,
    refresh_token: token.refreshToken,
    refresh_token_expires_in: REFRESH_TTL_SECONDS,
    scope: '',
    token_type: 'bearer',
  },
});

const userJson = (user: StandInUser) => ({
  login: user.login,
  id: user.id,
  node_id: `U_${user.id}`,
  avatar_url: `https://avatars.githubusercontent.com/u/${user.id}?v=4`,
  type: 'User',
  site_admin: false,
  name: user.name ?? null,
  email: user.email ?? null,
});

/** GET /user/memberships/orgs/{org}: the user's membership, 404 when not a member. */
function membershipAnswer(user: StandInUser, org: string): UserAuthAnswer {
  const membership = Object.entries(user.orgs ?? {}).find(([name]) => name.toLowerCase() === org.toLowerCase());
  if (!membership) return notFound();
  const [orgLogin, { role, state }] = membership;
  return {
    status: 200,
    body: {
      url: `${DOCS}/user/memberships/orgs/${orgLogin}`,
      state,
      role,
      organization_url: `${DOCS}/orgs/${orgLogin}`,
      organization: { login: orgLogin, id: 9000 + orgLogin.length, node_id: `O_${orgLogin}` },
      user: userJson(user),
    },
  };
}

class StandInUserAuth implements UserAuth {
  private readonly users: Map<string, StandInUser>;
  /** Users (lower-case logins) who have authorized the App: the authorize page asks them no more. */
  private readonly authorized = new Set<string>();
  private readonly codes = new Map<string, PendingCode>();
  private readonly tokens: UserToken[] = [];

  constructor(
    private readonly app: StandInOAuthApp | undefined,
    initialUsers: readonly StandInUser[],
  ) {
    this.users = new Map<string, StandInUser>(initialUsers.map((user) => [user.login.toLowerCase(), user]));
  }

  async handle(req: IncomingMessage, url: URL): Promise<UserAuthAnswer | undefined> {
    const method = req.method ?? 'GET';
    if (method === 'GET' && url.pathname === '/login/oauth/authorize') return this.authorize(req, url);
    if (method === 'POST' && url.pathname === '/login/oauth/authorize/decision') return this.decide(req);
    if (method === 'POST' && url.pathname === '/session') return this.signIn(req);
    if (method === 'POST' && url.pathname === '/login/oauth/access_token') return this.exchange(req);
    return this.apiRoute(req, url);
  }

  addUser(user: StandInUser): void {
    this.users.set(user.login.toLowerCase(), user);
  }

  userTokens(): { login: string; token: string }[] {
    return this.tokens.map((t) => ({ login: t.login, token: t.token }));
  }

  authorizeUser(login: string): { accessToken: string; refreshToken: string; refreshTokenExpiresIn: number } {
    const user = this.users.get(login.toLowerCase());
    if (!user) throw new Error(`no stand-in GitHub user ${login}`);
    this.authorized.add(user.login.toLowerCase());
    const token = this.mint(user.login);
    return { accessToken: token.token, refreshToken: token.refreshToken, refreshTokenExpiresIn: REFRESH_TTL_SECONDS };
  }

  revokeUserTokens(login: string): void {
    for (const token of this.tokens) if (token.login.toLowerCase() === login.toLowerCase()) token.revoked = true;
  }

  forgetAuthorization(login: string): void {
    this.authorized.delete(login.toLowerCase());
  }

  userOfToken(authorization: string | undefined): StandInUser | undefined {
    const given = /^(?:token|bearer) (ghu_\S+)$/i.exec(authorization ?? '')?.[1];
    const token = this.tokens.find((t) => t.token === given);
    if (!token || token.revoked || token.expiresAt <= Date.now()) return undefined;
    return this.users.get(token.login.toLowerCase());
  }

  refusal(authorization: string | undefined): UserAuthAnswer {
    // An installation token on a user route: GitHub refuses it as not accessible by an integration.
    return /^(?:token|bearer) ghs_/i.test(authorization ?? '')
      ? { status: 403, body: { message: 'Resource not accessible by integration', documentation_url: DOCS, status: '403' } }
      : badCredentials();
  }

  browserUser(req: IncomingMessage): StandInUser | undefined {
    const login = cookieOf(req, USER_COOKIE);
    return login ? this.users.get(login.toLowerCase()) : undefined;
  }

  signInPage(returnTo: string): UserAuthAnswer {
    return page(
      'Sign in to GitHub',
      `<h1>Sign in to GitHub</h1><form method="post" action="/session"><input type="hidden" name="return_to" value="${escapeHtml(returnTo)}">
<label>Username <input type="text" name="login" required></label> <label>Password <input type="password" name="password"></label>
<button type="submit" name="commit" value="sign-in">Sign in</button></form>`,
    );
  }

  private mint(login: string): UserToken {
    const token: UserToken = {
      token: `ghu_${randomBytes(18).toString('base64url')}`,
      refreshToken: `ghr_${randomBytes(30).toString('base64url')}`,
      login,
      expiresAt: Date.now() + TOKEN_TTL_SECONDS * 1000,
      revoked: false,
    };
    this.tokens.push(token);
    return token;
  }

  /** GET /login/oauth/authorize: who the browser is (its sign-in form first), then ask once, then redirect with a code. */
  private authorize(req: IncomingMessage, url: URL): UserAuthAnswer {
    const { app } = this;
    if (!app || url.searchParams.get('client_id') !== app.clientId)
      return { ...page('Not found', '<h1>404: this application does not exist</h1>'), status: 404 };
    const state = url.searchParams.get('state') ?? '';
    const given = url.searchParams.get('redirect_uri');
    const registered = app.callbackUrls[0] ?? '';
    if (given !== null && !app.callbackUrls.includes(given)) {
      const back = new URL(registered);
      back.searchParams.set('error', 'redirect_uri_mismatch');
      back.searchParams.set('error_description', 'The redirect_uri MUST match the registered callback URL for this application.');
      back.searchParams.set('state', state);
      return redirect(back.href);
    }
    const method = url.searchParams.get('code_challenge_method');
    const challenge = url.searchParams.get('code_challenge');
    if ((method !== null || challenge !== null) && (method !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(challenge ?? ''))) {
      return { ...page('Bad request', '<h1>code_challenge_method must be S256 with a 43-character code_challenge</h1>'), status: 400 };
    }
    const user = this.browserUser(req);
    const here = `${url.pathname}${url.search}`;
    if (!user) return this.signInPage(here);
    if (!this.authorized.has(user.login.toLowerCase())) {
      return page(
        'Authorize application',
        `<h1>Authorize ${escapeHtml(app.name ?? app.clientId)}</h1><form method="post" action="/login/oauth/authorize/decision">
<input type="hidden" name="return_to" value="${escapeHtml(here)}">
<button type="submit" name="authorize" value="1">Authorize</button> <button type="submit" name="authorize" value="0">Cancel</button></form>`,
      );
    }
    const code = randomBytes(10).toString('hex');
    this.codes.set(code, { login: user.login, redirectUri: given, challenge, expiresAt: Date.now() + CODE_TTL_MS });
    const back = new URL(given ?? registered);
    back.searchParams.set('code', code);
    if (state !== '') back.searchParams.set('state', state);
    return redirect(back.href);
  }

  private async signIn(req: IncomingMessage): Promise<UserAuthAnswer> {
    const form = await formOrJson(req);
    const user = this.users.get((form.login ?? '').toLowerCase());
    if (!user) return { ...page('Sign in to GitHub', '<h1>Incorrect username or password.</h1>'), status: 401 };
    return redirect(form.return_to?.startsWith('/') ? form.return_to : '/', {
      'set-cookie': `${USER_COOKIE}=${encodeURIComponent(user.login)}; Path=/; HttpOnly`,
    });
  }

  private async decide(req: IncomingMessage): Promise<UserAuthAnswer> {
    const form = await formOrJson(req);
    const login = cookieOf(req, USER_COOKIE);
    const returnTo = new URL(form.return_to ?? '/', 'http://stand-in');
    if (!login || !this.app) return badCredentials();
    if (form.authorize === '1') {
      this.authorized.add(login.toLowerCase());
      return redirect(`${returnTo.pathname}${returnTo.search}`);
    }
    // Cancel: GitHub sends the browser back with access_denied.
    const back = new URL(returnTo.searchParams.get('redirect_uri') ?? this.app.callbackUrls[0] ?? '');
    back.searchParams.set('error', 'access_denied');
    back.searchParams.set('error_description', 'The user has denied your application access.');
    back.searchParams.set('state', returnTo.searchParams.get('state') ?? '');
    return redirect(back.href);
  }

  /** POST /login/oauth/access_token: the code (once, 10 minutes, PKCE, the same redirect URI) or a refresh token → a user token. */
  private async exchange(req: IncomingMessage): Promise<UserAuthAnswer> {
    const form = await formOrJson(req);
    if (!this.app || form.client_id !== this.app.clientId || form.client_secret !== this.app.clientSecret) {
      return tokenError('incorrect_client_credentials', 'The client_id and/or client_secret passed are incorrect.');
    }
    if (form.grant_type === 'refresh_token') {
      const old = this.tokens.find((t) => t.refreshToken === form.refresh_token && !t.revoked);
      if (!old) return tokenError('bad_refresh_token', 'The refresh token passed is incorrect or expired.');
      old.revoked = true;
      return tokenAnswer(this.mint(old.login));
    }
    const pending = this.codes.get(form.code ?? '');
    this.codes.delete(form.code ?? '');
    if (!pending || pending.expiresAt <= Date.now()) return tokenError('bad_verification_code', 'The code passed is incorrect or expired.');
    if (form.redirect_uri !== undefined && pending.redirectUri !== null && form.redirect_uri !== pending.redirectUri) {
      return tokenError('redirect_uri_mismatch', 'The redirect_uri MUST match the registered callback URL for this application.');
    }
    if (pending.challenge !== null) {
      const verifier = form.code_verifier ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== pending.challenge) {
        // GitHub documents no error code of its own for a wrong verifier: the code is refused.
        return tokenError('bad_verification_code', 'The code passed is incorrect or expired.');
      }
    }
    return tokenAnswer(this.mint(pending.login));
  }

  private apiRoute(req: IncomingMessage, url: URL): UserAuthAnswer | undefined {
    if (req.method !== 'GET') return undefined;
    const path = url.pathname;
    if (path !== '/user' && path !== '/user/emails' && !path.startsWith('/user/memberships/orgs/')) return undefined;
    const user = this.userOfToken(req.headers.authorization);
    if (!user) return this.refusal(req.headers.authorization);
    if (path === '/user') return { status: 200, body: userJson(user) };
    if (path === '/user/emails') {
      const emails = user.emails ?? (user.email ? [{ email: user.email, primary: true, verified: true, visibility: 'public' as const }] : []);
      return { status: 200, body: emails };
    }
    return membershipAnswer(user, decodeURIComponent(path.slice('/user/memberships/orgs/'.length)));
  }
}

export function createUserAuth(app: StandInOAuthApp | undefined, initialUsers: readonly StandInUser[]): UserAuth {
  return new StandInUserAuth(app, initialUsers);
}
