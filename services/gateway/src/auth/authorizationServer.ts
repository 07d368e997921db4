import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from '@ars/logger';
import type { Db } from '@ars/mongo';
import { MCP_SCOPES, mcpResourceOf, oauthIssuerOf } from '../domain/oauthClients.js';
import { oauthAdapterClass } from '../store/oauthRecords.js';
import type { ServiceConfig } from '@ars/service';
import type { GatewayConfigSchema } from '../config.js';

/** The authorization server behind `/mcp`: `oidc-provider`, its issuer and the one resource it issues tokens for. */
export interface AuthorizationServer {
  provider: Provider;
  /** `{PUBLIC_BASE_URL}/oauth`. */
  issuer: string;
  /** `{PUBLIC_BASE_URL}/api/v1/svc/mcp`: the only resource (and audience) of its access tokens. */
  mcpResource: string;
}

export interface AuthorizationServerOptions {
  config: ServiceConfig<GatewayConfigSchema>;
  publicOrigin: string;
  db: Db;
  logger: Logger;
}

/**
 * `oidc-provider`, imported once the configuration is known to be good (a configuration error stays
 * the one line it is), with what it prints on import (`Unsupported runtime` on Node 20, which it
 * runs on; see the README) turned into a structured warning of the gateway's log.
 */
async function loadOidcProvider(logger: Logger): Promise<typeof import('oidc-provider')> {
  const consoleWarn = console.warn;
  console.warn = (...args: unknown[]) => logger.warn({ source: 'oidc-provider' }, args.map(String).join(' '));
  try {
    return await import('oidc-provider');
  } finally {
    console.warn = consoleWarn;
  }
}

/** Development only: a fixed key, so cookies survive restarts. Production refuses to start without OAUTH_COOKIE_KEYS. */
function developmentCookieKey(): string {
  return createHash('sha256').update('agent-run-service gateway development oauth cookie key').digest('base64url');
}

/**
 * The signing key of ID tokens, made at start-up. MCP clients ask for no `openid` scope and the
 * access tokens are opaque (checked against the database on every request), so nothing this key
 * signs has to outlive the process or be shared between replicas.
 */
function ephemeralSigningKeys(): { keys: Record<string, unknown>[] } {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'ES256', use: 'sig' }] };
}

/**
 * `oidc-provider` as OAuth 2.1 authorization server for the MCP transport (RESEARCH.md, section 3):
 * dynamic registration and client ID metadata documents, PKCE S256 for every client, the MCP URL as
 * the only resource with scopes `read` and `write`, opaque access tokens, refresh tokens rotated on
 * use, RFC 7009 revocation, consent on the gateway's browser session (`interactions.url`).
 */
export async function createAuthorizationServer(options: AuthorizationServerOptions): Promise<AuthorizationServer> {
  const { config, publicOrigin, db } = options;
  const { default: OidcProvider, errors } = await loadOidcProvider(options.logger);
  const issuer = oauthIssuerOf(publicOrigin);
  const mcpResource = mcpResourceOf(publicOrigin);
  const allowedMetadataHosts = new Set(config.OAUTH_CLIENT_METADATA_HOSTS.map((host) => host.toLowerCase()));

  const configuration: Configuration = {
    adapter: oauthAdapterClass(db, { unusedClientTtlSeconds: config.OAUTH_UNUSED_CLIENT_TTL_SECONDS }),
    clients: [],
    jwks: ephemeralSigningKeys() as Configuration['jwks'],
    cookies: { keys: config.OAUTH_COOKIE_KEYS ?? [developmentCookieKey()] },
    findAccount: (_ctx: KoaContextWithOIDC, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    // Listed so a client's registered `scope` may name them; tokens get them as scopes of the MCP resource.
    scopes: ['offline_access', ...MCP_SCOPES],
    responseTypes: ['code'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    pkce: { required: () => true },
    interactions: { url: (_ctx: KoaContextWithOIDC, interaction) => `/oauth/consent/${interaction.uid}` },
    // Every authorization asks the signed-in user again: only the grant of this consent is used, none reused silently.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    issueRefreshToken: (_ctx: KoaContextWithOIDC, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: () => false,
    rotateRefreshToken: true,
    ttl: {
      AccessToken: config.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
      RefreshToken: config.OAUTH_REFRESH_TOKEN_TTL_SECONDS,
      AuthorizationCode: 60,
      Interaction: 600,
      Grant: config.OAUTH_REFRESH_TOKEN_TTL_SECONDS,
      Session: 86_400,
      IdToken: 3_600,
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: false },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        allowFetch: (_ctx: KoaContextWithOIDC, clientId: string) =>
          allowedMetadataHosts.size === 0 || allowedMetadataHosts.has(new URL(clientId).host.toLowerCase()),
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx: KoaContextWithOIDC, _client: unknown, oneOf?: string[]) => oneOf ?? mcpResource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: KoaContextWithOIDC, resource: string) => {
          if (resource !== mcpResource) throw new errors.InvalidTarget(`the only resource is ${mcpResource}`);
          return {
            scope: MCP_SCOPES.join(' '),
            audience: mcpResource,
            accessTokenFormat: 'opaque',
            accessTokenTTL: config.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
          };
        },
      },
    } as Configuration['features'],
  };
  const provider = new OidcProvider(issuer, configuration);
  provider.proxy = config.TRUST_PROXY;
  return { provider, issuer, mcpResource };
}
