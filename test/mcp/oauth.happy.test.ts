// OAuth 2.1 for the MCP transport on the whole stack: the metadata a client discovers, the official
// SDK's own auth() flow (registration, PKCE, consent given by a test browser on the gateway's
// browser session), the token then used for tools/list and a call, Deny, and refresh rotation.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { tenant, type Account } from '../support/accounts.js';
import { CookieJar, MemoryOAuthClient, sdkClientMetadata, TEST_REDIRECT_URI, visitAuthorization } from '../support/oauthBrowser.js';
import { sharedSystem } from '@ars/testenv';

const system = sharedSystem();
const REDIRECT = TEST_REDIRECT_URI;
const mcpUrl = () => new URL(`${system().baseUrl}/api/v1/svc/mcp`);

let account: Account;
beforeAll(async () => {
  account = (await tenant(system().baseUrl)).account;
}, 60_000);

function oauthClient(scope = 'read write'): MemoryOAuthClient {
  return new MemoryOAuthClient(REDIRECT, sdkClientMetadata(scope));
}

/** The SDK's flow to its end: 401 → discovery → registration → authorization URL; the browser answers; the code is exchanged. */
async function authorize(provider: MemoryOAuthClient, decision: 'allow' | 'deny' = 'allow', scope?: string) {
  const first = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await expect(client.connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  const url = new URL(provider.authorizationUrl as URL);
  // The SDK asks for the scopes of the 401's challenge; a client asking for less narrows the URL.
  if (scope) url.searchParams.set('scope', scope);
  const visit = await visitAuthorization(url, { jar: new CookieJar(account.sessionCookie), redirectUri: REDIRECT, decision });
  return { first, visit };
}

async function connected(provider: MemoryOAuthClient): Promise<Client> {
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
  return client;
}

describe('discovery: a 401 points at the protected resource metadata, which points at the authorization server', () => {
  test('the 401 of /mcp carries WWW-Authenticate with resource_metadata and the scopes', async () => {
    const answer = await fetch(mcpUrl(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${system().baseUrl}/.well-known/oauth-protected-resource/api/v1/svc/mcp", scope="read write"`,
    );
  });

  test('RFC 9728 metadata at the path-inserted URL names the MCP URL as the resource', async () => {
    const metadata = (await (await fetch(`${system().baseUrl}/.well-known/oauth-protected-resource/api/v1/svc/mcp`)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      resource: mcpUrl().href,
      authorization_servers: [`${system().baseUrl}/oauth`],
      scopes_supported: ['read', 'write'],
      bearer_methods_supported: ['header'],
    });
  });

  test('RFC 8414 metadata at the path-inserted URL: S256 only, registration, revocation, client ID metadata documents, public clients', async () => {
    const answer = await fetch(`${system().baseUrl}/.well-known/oauth-authorization-server/oauth`);
    expect(answer.status).toBe(200);
    const metadata = (await answer.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: `${system().baseUrl}/oauth`,
      authorization_endpoint: `${system().baseUrl}/oauth/auth`,
      token_endpoint: `${system().baseUrl}/oauth/token`,
      registration_endpoint: `${system().baseUrl}/oauth/reg`,
      revocation_endpoint: `${system().baseUrl}/oauth/token/revocation`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
    });
    expect(metadata.token_endpoint_auth_methods_supported).toContain('none');
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
  });
});

describe('the SDK auth() flow: registration, PKCE, consent on the browser session, then the token works on /mcp', () => {
  test('Allow: the client gets a code, exchanges it, lists the 23 tools and calls one', async () => {
    const provider = oauthClient();
    const { first, visit } = await authorize(provider);
    expect(visit.consentStatus).toBe(200);
    expect(visit.consentPage).toContain('SDK test client');
    expect(visit.consentPage).toContain('<code>read</code>');
    expect(visit.consentPage).toContain('<code>write</code>');
    const code = visit.redirect?.searchParams.get('code');
    expect(code).toBeTruthy();
    await first.finishAuth(code as string);
    expect(provider.saved?.access_token).toBeTruthy();
    expect(provider.saved?.access_token).not.toMatch(/^tok_/);
    expect(provider.saved?.refresh_token).toBeTruthy();

    const client = await connected(provider);
    try {
      expect((await client.listTools()).tools).toHaveLength(23);
      const repos = (await client.callTool({ name: 'svc_list_repos', arguments: {} })) as { isError?: boolean; structuredContent?: { repos?: unknown[] } };
      expect(repos.isError).toBe(false);
      expect(repos.structuredContent?.repos?.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  test('a token asked with scope read lists only the 13 read tools', async () => {
    const provider = oauthClient('read');
    const { first, visit } = await authorize(provider, 'allow', 'read');
    expect(visit.consentPage).not.toContain('<code>write</code>');
    await first.finishAuth(visit.redirect?.searchParams.get('code') as string);
    const client = await connected(provider);
    try {
      expect((await client.listTools()).tools).toHaveLength(13);
    } finally {
      await client.close();
    }
  });

  test('Deny: the client is sent back with error=access_denied and no code', async () => {
    const provider = oauthClient();
    const { visit } = await authorize(provider, 'deny');
    expect(visit.redirect?.searchParams.get('error')).toBe('access_denied');
    expect(visit.redirect?.searchParams.get('code')).toBeNull();
  });

  test('without a browser session the consent page says where to sign in, and grants nothing', async () => {
    const provider = oauthClient();
    const first = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
    await expect(new Client({ name: 'oauth-test', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    const visit = await visitAuthorization(provider.authorizationUrl as URL, { jar: new CookieJar(), redirectUri: REDIRECT, decision: 'allow' });
    expect(visit.consentStatus).toBe(401);
    expect(visit.consentPage).toContain('Sign in to continue');
    expect(visit.redirect).toBeUndefined();
  });
});
