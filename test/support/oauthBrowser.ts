// A test browser for the OAuth consent flow: follows redirects by hand with a cookie jar (the
// gateway's session cookie plus the authorization server's own cookies), reads the consent page and
// submits its form the way a browser does (form-encoded, with the page's Origin), and stops at the
// client's redirect URI, whose query (code or error, state) it returns.
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export class CookieJar {
  private readonly cookies = new Map<string, string>();

  constructor(initial?: string) {
    if (initial) this.set(initial);
  }

  /** A `Set-Cookie` line (or a bare `name=value`): kept, or forgotten when it clears the cookie (empty, `Max-Age=0`). */
  set(pair: string): void {
    const [nameValue] = pair.split(';');
    const at = nameValue?.indexOf('=') ?? -1;
    if (!nameValue || at < 1) return;
    const name = nameValue.slice(0, at).trim();
    const value = nameValue.slice(at + 1).trim();
    if (value === '' || /;\s*max-age=0\b/i.test(pair)) this.cookies.delete(name);
    else this.cookies.set(name, value);
  }

  has(name: string): boolean {
    return this.cookies.has(name);
  }

  take(response: Response): void {
    for (const cookie of response.headers.getSetCookie()) this.set(cookie);
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

export interface BrowserVisit {
  /** The consent page as the user saw it (its HTML), if one was shown. */
  consentPage?: string;
  consentStatus?: number;
  /** The client's redirect URI as reached, with its query. */
  redirect?: URL;
}

/**
 * Opens `url` like a browser whose user answers the consent page with `decision`: follows redirects
 * within the gateway, submits the form, and stops at `redirectUri` (never fetched).
 */
export async function visitAuthorization(url: URL, options: { jar: CookieJar; redirectUri: string; decision: 'allow' | 'deny' }): Promise<BrowserVisit> {
  const visit: BrowserVisit = {};
  let next: URL = url;
  let method: 'GET' | 'POST' = 'GET';
  let body: string | undefined;
  const hops: string[] = [];
  for (let hop = 0; hop < 12; hop++) {
    hops.push(`${method} ${next.pathname}${next.search.slice(0, 80)}`);
    if (next.href.startsWith(options.redirectUri)) return { ...visit, redirect: next };
    const response = await fetch(next, {
      method,
      redirect: 'manual',
      headers: {
        cookie: options.jar.header(),
        ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded', origin: next.origin } : {}),
      },
      ...(body === undefined ? {} : { body }),
    });
    options.jar.take(response);
    if (response.status >= 300 && response.status < 400) {
      next = new URL(response.headers.get('location') ?? '', next);
      method = 'GET';
      body = undefined;
      continue;
    }
    const text = await response.text();
    if (!next.pathname.startsWith('/oauth/consent/') || method === 'POST') return { ...visit, consentPage: text, consentStatus: response.status };
    visit.consentPage = text;
    visit.consentStatus = response.status;
    if (response.status !== 200) return visit;
    const action = /<form method="post" action="([^"]+)"/.exec(text)?.[1];
    if (!action) throw new Error('the consent page has no form');
    next = new URL(action, next);
    method = 'POST';
    body = new URLSearchParams({ decision: options.decision }).toString();
  }
  throw new Error(`too many redirects:\n${hops.join('\n')}`);
}

/** The SDK's OAuth client side, backed by memory; `redirectToAuthorization` records the URL the user would open. */
export class MemoryOAuthClient implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  authorizationUrl: URL | undefined;
  private verifier = '';

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadata: OAuthClientMetadata,
  ) {}

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.information;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.information = information;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }
}

export const TEST_REDIRECT_URI = 'http://127.0.0.1:33418/callback';

/** Client metadata shaped like the SDK's, for a loopback redirect. */
export function sdkClientMetadata(scope = 'read write'): OAuthClientMetadata {
  return {
    client_name: 'SDK test client',
    redirect_uris: [TEST_REDIRECT_URI],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    scope,
  };
}

/**
 * Tokens for `sessionCookie`'s user through the SDK's whole auth() flow (registration, PKCE, the
 * consent page answered Allow by the test browser, the code exchanged), with `scope` asked.
 */
export async function obtainOAuthTokens(baseUrl: string, sessionCookie: string, scope = 'read write'): Promise<{ tokens: OAuthTokens; clientId: string }> {
  const provider = new MemoryOAuthClient(TEST_REDIRECT_URI, sdkClientMetadata(scope));
  const mcpUrl = new URL(`${baseUrl}/api/v1/svc/mcp`);
  const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await new Client({ name: 'oauth-test', version: '1.0.0' }).connect(transport).catch((error: unknown) => {
    if (!(error instanceof UnauthorizedError)) throw error;
  });
  const url = new URL(provider.authorizationUrl ?? mcpUrl);
  url.searchParams.set('scope', scope);
  const visit = await visitAuthorization(url, { jar: new CookieJar(sessionCookie), redirectUri: TEST_REDIRECT_URI, decision: 'allow' });
  const code = visit.redirect?.searchParams.get('code');
  if (!code) throw new Error(`no code: consent answered ${visit.consentStatus ?? 'nothing'}`);
  await transport.finishAuth(code);
  if (!provider.saved || !provider.information) throw new Error('the SDK saved no tokens');
  return { tokens: provider.saved, clientId: provider.information.client_id };
}
