import type { DevelopmentDefault } from '@ars/config';
import { env } from '@ars/service';
import { peerConfigSchema } from './peers.js';
import { DEFAULT_SESSION_TTL_SECONDS } from './domain/sessions.js';

/** The gateway's own variables (besides the common ones of `@ars/config`). */
export const gatewayConfigSchema = {
  ...peerConfigSchema,
  /** Redis of the rate limits (required: without it every public request would be 503). */
  REDIS_URL: env.url({ protocols: ['redis', 'rediss'] }),
  /** The origin browsers see; mutating session routes require `Origin` to equal it. Default `http://127.0.0.1:$PORT`. */
  PUBLIC_BASE_URL: env.url({ optional: true, protocols: ['http', 'https'] }),
  /** Browser session lifetime (default 7 days). */
  SESSION_TTL_SECONDS: env.integer({ min: 1, max: 31_536_000, default: DEFAULT_SESSION_TTL_SECONDS }),
  /** Browser origins besides PUBLIC_BASE_URL's that may call `POST /mcp` (others: 403, JSON-RPC -32003); clients that send no Origin are not browsers. */
  MCP_ALLOWED_ORIGINS: env.list({
    default: [],
    minItems: 0,
    pattern: '^https?://[^/]+$',
    describe: 'a comma-separated list of origins (scheme://host[:port])',
  }),
  /** Requests to `/mcp` with a token that is refused, per client address and minute, before they answer 429 (-32002) instead of 401. */
  MCP_FAILED_AUTH_PER_MINUTE: env.integer({ min: 1, max: 100_000, default: 30 }),
  /** OAuth dynamic client registrations per client address and hour, before 429 `too_many_requests`. */
  OAUTH_REGISTRATIONS_PER_HOUR: env.integer({ min: 1, max: 100_000, default: 20 }),
  /** `ars login` code exchanges (`POST /api/cli/token`) per client address and minute, before 429 RATE_LIMITED. */
  CLI_TOKEN_EXCHANGES_PER_MINUTE: env.integer({ min: 1, max: 100_000, default: 30 }),
  /** Behind a TLS-terminating proxy: `X-Forwarded-Proto: https` makes the session cookie `Secure`. */
  TRUST_PROXY: env.boolean({ default: false }),
  /**
   * Keys signing the OAuth authorization server's cookies (its interaction and session cookies),
   * newest first so a key can rotate. Required in production; development uses a fixed key.
   */
  OAUTH_COOKIE_KEYS: env.list({ optional: true, pattern: '^.{32,}$', describe: 'a comma-separated list of secrets of at least 32 characters' }),
  /** Lifetime of an OAuth access token for `/mcp` (default 1 hour); a refresh token renews it. */
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: env.integer({ min: 60, max: 86_400, default: 3_600 }),
  /** Lifetime of an OAuth refresh token (default 30 days; each use rotates it). */
  OAUTH_REFRESH_TOKEN_TTL_SECONDS: env.integer({ min: 3_600, max: 31_536_000, default: 2_592_000 }),
  /**
   * How long a dynamically registered OAuth client is kept after its last use (registration, an
   * authorization, a token issued to it; default 30 days). Never before its refresh tokens expire.
   */
  OAUTH_UNUSED_CLIENT_TTL_SECONDS: env.integer({ min: 3_600, max: 31_536_000, default: 2_592_000 }),
  /**
   * Hosts whose client ID metadata documents (`client_id` an https URL) the authorization server
   * fetches. Empty (the default): any public https host; loopback and private addresses never.
   */
  OAUTH_CLIENT_METADATA_HOSTS: env.list({ default: [], minItems: 0, pattern: '^[A-Za-z0-9.-]+(:[0-9]+)?$', describe: 'a comma-separated list of host names' }),
};
export type GatewayConfigSchema = typeof gatewayConfigSchema;

/**
 * The gateway's development defaults, refused in production (beside the internal token of every
 * service): the public origin left at the loopback default, which the session routes' `Origin`
 * check would compare against. (The development account route is not mounted in production.)
 */
export function gatewayDevelopmentDefaults(config: { PUBLIC_BASE_URL?: string | undefined; OAUTH_COOKIE_KEYS?: string[] | undefined }): DevelopmentDefault[] {
  return [
    { inUse: !config.PUBLIC_BASE_URL, problem: 'PUBLIC_BASE_URL is required in production (the origin browsers see; the default is the loopback address)' },
    { inUse: !config.OAUTH_COOKIE_KEYS, problem: 'OAUTH_COOKIE_KEYS is required in production (the development key signing OAuth cookies is public)' },
  ];
}
