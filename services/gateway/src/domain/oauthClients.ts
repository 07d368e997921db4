import { PUBLIC_PREFIX } from './routeTable.js';
import type { Scope } from './scopes.js';

/** The scopes an OAuth access token for `/mcp` can carry: the PAT scopes. */
export const MCP_SCOPES: readonly Scope[] = ['read', 'write'];

/** Where the authorization server is mounted on the gateway. */
export const OAUTH_PREFIX = '/oauth';
export const MCP_PATH = `${PUBLIC_PREFIX}/mcp`;
/** RFC 9728: the resource's metadata at the path-inserted well-known URL of the MCP endpoint. */
export const PROTECTED_RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${MCP_PATH}`;

export function oauthIssuerOf(publicOrigin: string): string {
  return `${publicOrigin}${OAUTH_PREFIX}`;
}

export function mcpResourceOf(publicOrigin: string): string {
  return `${publicOrigin}${MCP_PATH}`;
}

/** RFC 9728 protected resource metadata of the MCP endpoint. */
export function protectedResourceMetadata(publicOrigin: string): Record<string, unknown> {
  return {
    resource: mcpResourceOf(publicOrigin),
    authorization_servers: [oauthIssuerOf(publicOrigin)],
    scopes_supported: [...MCP_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Agent Run Service',
  };
}

/** The challenge of a 401 on `/mcp`: where a client learns how to get a token (RFC 9728, section 5.1). */
export function mcpBearerChallenge(publicOrigin: string): string {
  return `Bearer resource_metadata="${publicOrigin}${PROTECTED_RESOURCE_METADATA_PATH}", scope="${MCP_SCOPES.join(' ')}"`;
}

/** How many redirect URIs one registration may carry. */
export const MAX_REDIRECT_URIS = 10;

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]';
}

/**
 * `application_type` of a registration that does not say: `native` when a redirect URI is a
 * loopback `http` URL or a private-use scheme (`cursor://…`), as desktop and CLI clients send;
 * otherwise `web`. Without this, one such URI (Cursor registers three kinds at once) would refuse
 * the whole registration, since `oidc-provider` defaults to `web` (RESEARCH.md, section 3, finding 5).
 */
export function inferredApplicationType(redirectUris: readonly unknown[]): 'native' | 'web' {
  for (const uri of redirectUris) {
    if (typeof uri !== 'string') continue;
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      continue;
    }
    if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return 'native';
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'native';
  }
  return 'web';
}

/** What is wrong with a registration body before `oidc-provider` validates it, if anything. */
export function registrationProblem(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the registration body must be a JSON object';
  const redirectUris = (body as { redirect_uris?: unknown }).redirect_uris;
  if (Array.isArray(redirectUris) && redirectUris.length > MAX_REDIRECT_URIS) return `at most ${MAX_REDIRECT_URIS} redirect_uris may be registered`;
  return undefined;
}

/** The window of client registrations from one client address (one hour, `OAUTH_REGISTRATIONS_PER_HOUR`; RESEARCH.md: registration is rate limited). */
export function registrationWindow(address: string, perHour: number): { key: string; limit: number; windowMs: number } {
  return { key: `rl:oauth-reg:${address}`, limit: perHour, windowMs: 3_600_000 };
}

/** The window of refused `/mcp` tokens from one client address (one minute, `MCP_FAILED_AUTH_PER_MINUTE`). */
export function failedAuthenticationWindow(address: string, perMinute: number): { key: string; limit: number; windowMs: number } {
  return { key: `rl:mcp-auth-failed:${address}`, limit: perMinute, windowMs: 60_000 };
}
