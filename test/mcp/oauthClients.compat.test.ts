// The registrations real MCP clients send (fixtures/registrations: Claude Code, VS Code, Cursor,
// Codex) accepted by the gateway's authorization server, each able to start an authorization with
// every redirect URI it registered; and the registration policy's limits.
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedSystem } from '@ars/testenv';

const system = sharedSystem();
const FIXTURES = fileURLToPath(new URL('./fixtures/registrations/', import.meta.url));
const fixtures = readdirSync(FIXTURES)
  .filter((file) => file.endsWith('.json'))
  .map((file) => [file.replace(/\.json$/, ''), JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as Record<string, unknown>] as const);

async function register(body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const answer = await fetch(`${system().baseUrl}/oauth/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: answer.status, json: (await answer.json()) as Record<string, unknown> };
}

function authorizationUrl(clientId: string, redirectUri: string, withPkce = true): string {
  const url = new URL(`${system().baseUrl}/oauth/auth`);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('scope', 'read write');
  url.searchParams.set('state', 'state-1');
  url.searchParams.set('resource', `${system().baseUrl}/api/v1/svc/mcp`);
  if (withPkce) {
    url.searchParams.set('code_challenge', createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'));
    url.searchParams.set('code_challenge_method', 'S256');
  }
  return url.href;
}

describe('registrations shaped like Claude Code’s, VS Code’s, Cursor’s and Codex’s are accepted', () => {
  test.each(fixtures)('%s: registered as a native public client, and every redirect URI starts an authorization', async (_name, body) => {
    const { status, json } = await register(body);
    expect(status).toBe(201);
    expect(json.application_type).toBe('native');
    expect(json.token_endpoint_auth_method).toBe('none');
    expect(json.client_secret).toBeUndefined();
    for (const redirectUri of body.redirect_uris as string[]) {
      const answer = await fetch(authorizationUrl(json.client_id as string, redirectUri), { redirect: 'manual' });
      expect(answer.status).toBe(303);
      expect(answer.headers.get('location')).toMatch(/^\/oauth\/consent\//);
    }
  });
});

describe('the registration policy: web clients stay web, too many redirect URIs and bad bodies are refused', () => {
  test('an https-only registration without application_type stays a web client', async () => {
    const { status, json } = await register({ client_name: 'web', redirect_uris: ['https://app.example.com/callback'], token_endpoint_auth_method: 'none' });
    expect(status).toBe(201);
    expect(json.application_type).toBe('web');
  });

  test('more than 10 redirect URIs is 400 invalid_client_metadata', async () => {
    const redirectUris = Array.from({ length: 11 }, (_, i) => `http://127.0.0.1:${40000 + i}/callback`);
    const { status, json } = await register({ client_name: 'many', redirect_uris: redirectUris });
    expect(status).toBe(400);
    expect(json).toEqual({ error: 'invalid_client_metadata', error_description: 'at most 10 redirect_uris may be registered' });
  });

  test('a body that is not JSON is 400 invalid_client_metadata', async () => {
    const answer = await fetch(`${system().baseUrl}/oauth/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: string }).error).toBe('invalid_client_metadata');
  });

  test('PKCE is required: an authorization without code_challenge goes back to the client with invalid_request', async () => {
    const { json } = await register({ client_name: 'no pkce', redirect_uris: ['http://127.0.0.1:40100/callback'], token_endpoint_auth_method: 'none' });
    const answer = await fetch(authorizationUrl(json.client_id as string, 'http://127.0.0.1:40100/callback', false), { redirect: 'manual' });
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get('location') ?? '');
    expect(location.origin + location.pathname).toBe('http://127.0.0.1:40100/callback');
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toMatch(/PKCE/);
  });

  test('a resource other than the MCP URL is refused with invalid_target', async () => {
    const { json } = await register({ client_name: 'other resource', redirect_uris: ['http://127.0.0.1:40101/callback'], token_endpoint_auth_method: 'none' });
    const url = new URL(authorizationUrl(json.client_id as string, 'http://127.0.0.1:40101/callback'));
    url.searchParams.set('resource', 'https://elsewhere.example/mcp');
    const answer = await fetch(url, { redirect: 'manual' });
    expect(new URL(answer.headers.get('location') ?? '').searchParams.get('error')).toBe('invalid_target');
  });
});

describe('client ID metadata documents: advertised, and never fetched from loopback or private addresses', () => {
  test('a client_id URL on a loopback address is refused as invalid_client', async () => {
    const clientId = 'https://127.0.0.1:9/oauth/client-metadata.json';
    const answer = await fetch(authorizationUrl(clientId, 'http://127.0.0.1:40102/callback'), { redirect: 'manual' });
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('invalid_client');
  });
});
