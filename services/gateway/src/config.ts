import { env, type DevelopmentDefault } from '@ars/config';
import type { ServiceConfigurationDefinition } from '@ars/service/configuration';
import { DEFAULT_SESSION_TTL_SECONDS } from './domain/sessions.js';

const urlOf = () => env.url({ protocols: ['http', 'https'] });

/** `CATALOG_URL`, `RUNS_URL`, …: where each peer's internal API is (peers.ts). */
export const peerConfigSchema = {
  CATALOG_URL: urlOf(),
  RUNS_URL: urlOf(),
  SANDBOXES_URL: urlOf(),
  AUTOMATIONS_ENGINE_URL: urlOf(),
  PR_REVIEW_URL: urlOf(),
  MCP_REGISTRY_URL: urlOf(),
};
export type PeerConfig = typeof peerConfigSchema;

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
  /** How long a request waits on Redis for its rate limits before the limit fails closed (503; a refused token's count fails open). */
  RATE_LIMIT_TIMEOUT_MS: env.integer({ min: 50, max: 10_000, default: 1_000 }),
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
  /** Sign-in through OpenID Connect: the issuer (its discovery document is `<issuer>/.well-known/openid-configuration`). */
  OIDC_ISSUER: env.url({ optional: true, protocols: ['http', 'https'] }),
  /** The client registered with the issuer for this gateway (redirect URI `{PUBLIC_BASE_URL}/auth/callback`). */
  OIDC_CLIENT_ID: env.string({ optional: true }),
  /** Its secret, sent the way the issuer's metadata says (`client_secret_basic` unless it offers only `client_secret_post`). */
  OIDC_CLIENT_SECRET: env.string({ optional: true, secret: true }),
  /** Who may sign in: verified emails of these domains (a comma list). Empty: nobody, unless OIDC_ALLOW_ANY=true. */
  OIDC_ALLOWED_EMAIL_DOMAINS: env.list({
    default: [],
    minItems: 0,
    pattern: '^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+$',
    describe: 'a comma-separated list of email domains (example.com)',
  }),
  /** Lets any account of the issuer sign in (no domain rule): an explicit choice, never a default. */
  OIDC_ALLOW_ANY: env.boolean({ default: false }),
  /** Sign-in with GitHub: the GitHub App's client id (its OAuth credentials; callback URL `{PUBLIC_BASE_URL}/auth/callback/github`). */
  GITHUB_CLIENT_ID: env.string({ optional: true }),
  GITHUB_CLIENT_SECRET: env.string({ optional: true, secret: true }),
  /** Who may sign in with GitHub: active members of these organizations (a comma list). Empty: nobody, unless GITHUB_ALLOW_ANY=true. */
  GITHUB_ALLOWED_ORGS: env.list({
    default: [],
    minItems: 0,
    pattern: '^[A-Za-z0-9]([A-Za-z0-9-]{0,38})$',
    describe: 'a comma-separated list of GitHub organization logins',
  }),
  /** Lets any GitHub account sign in: an explicit choice, never a default. */
  GITHUB_ALLOW_ANY: env.boolean({ default: false }),
  /** With the App's client set, sign-in with GitHub is offered unless this says false (a company signing in through OpenID Connect only, still connecting GitHub). */
  GITHUB_SIGN_IN: env.boolean({ default: true }),
  /** The GitHub App's slug (its page `{GITHUB_WEB_URL}/apps/<slug>`): with the App's client, the settings page's "Connect GitHub" installs it. */
  GITHUB_APP_SLUG: env.string({ optional: true, pattern: '^[a-z0-9][a-z0-9-]{0,99}$', describe: 'a GitHub App slug (lower case, digits, hyphens)' }),
  /** GitHub's web host (the OAuth pages) and API (GitHub Enterprise Server, or a stand-in in tests). */
  GITHUB_WEB_URL: env.url({ default: 'https://github.com', protocols: ['http', 'https'] }),
  GITHUB_API_URL: env.url({ default: 'https://api.github.com', protocols: ['http', 'https'] }),
};
export type GatewayConfigSchema = typeof gatewayConfigSchema;

/** The OpenID Connect settings, as the sign-in routes read them. */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  allowedEmailDomains: readonly string[];
  allowAny: boolean;
}

/** Sign-in with GitHub, as the sign-in routes read it. */
export interface GitHubSignInSettings {
  clientId: string;
  clientSecret: string;
  allowedOrgs: readonly string[];
  allowAny: boolean;
  webUrl: string;
  apiUrl: string;
}

interface GitHubVariables {
  GITHUB_CLIENT_ID?: string | undefined;
  GITHUB_CLIENT_SECRET?: string | undefined;
  GITHUB_ALLOWED_ORGS: readonly string[];
  GITHUB_ALLOW_ANY: boolean;
  GITHUB_SIGN_IN: boolean;
  GITHUB_APP_SLUG?: string | undefined;
  GITHUB_WEB_URL: string;
  GITHUB_API_URL: string;
}

/** Sign-in with GitHub, when it is configured (and not turned off). */
export function gitHubSignInSettingsOf(config: GitHubVariables): GitHubSignInSettings | undefined {
  if (!config.GITHUB_CLIENT_ID || !config.GITHUB_CLIENT_SECRET || !config.GITHUB_SIGN_IN) return undefined;
  return {
    clientId: config.GITHUB_CLIENT_ID,
    clientSecret: config.GITHUB_CLIENT_SECRET,
    allowedOrgs: config.GITHUB_ALLOWED_ORGS,
    allowAny: config.GITHUB_ALLOW_ANY,
    webUrl: config.GITHUB_WEB_URL,
    apiUrl: config.GITHUB_API_URL,
  };
}

/** Connecting the GitHub App (the settings page's "Connect GitHub"): its slug and its client. */
export interface GitHubConnectionSettings {
  slug: string;
  clientId: string;
  clientSecret: string;
  webUrl: string;
}

export function gitHubConnectionSettingsOf(config: GitHubVariables): GitHubConnectionSettings | undefined {
  if (!config.GITHUB_APP_SLUG || !config.GITHUB_CLIENT_ID || !config.GITHUB_CLIENT_SECRET) return undefined;
  return { slug: config.GITHUB_APP_SLUG, clientId: config.GITHUB_CLIENT_ID, clientSecret: config.GITHUB_CLIENT_SECRET, webUrl: config.GITHUB_WEB_URL };
}

interface OidcVariables {
  OIDC_ISSUER?: string | undefined;
  OIDC_CLIENT_ID?: string | undefined;
  OIDC_CLIENT_SECRET?: string | undefined;
  OIDC_ALLOWED_EMAIL_DOMAINS: readonly string[];
  OIDC_ALLOW_ANY: boolean;
}

/** The OpenID Connect sign-in, when it is configured (gatewayConfigProblems says what a half configuration lacks). */
export function oidcSettingsOf(config: OidcVariables): OidcSettings | undefined {
  if (!config.OIDC_ISSUER || !config.OIDC_CLIENT_ID || !config.OIDC_CLIENT_SECRET) return undefined;
  return {
    issuer: config.OIDC_ISSUER,
    clientId: config.OIDC_CLIENT_ID,
    clientSecret: config.OIDC_CLIENT_SECRET,
    allowedEmailDomains: config.OIDC_ALLOWED_EMAIL_DOMAINS.map((domain) => domain.toLowerCase()),
    allowAny: config.OIDC_ALLOW_ANY,
  };
}

/** Variables that go together: all set or none. The problem naming the missing ones, if some are set. */
function byHalves<N extends string>(config: Partial<Record<N, string | undefined>>, names: readonly N[], what: string): string[] {
  const missing = names.filter((name) => !config[name]);
  if (missing.length === 0 || missing.length === names.length) return [];
  return [`${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} required with ${names.filter((name) => config[name]).join(' and ')} (${what})`];
}

/** Settings that cannot work in any environment: a sign-in method configured by halves. */
export function gatewayConfigProblems(config: OidcVariables & GitHubVariables): string[] {
  return [
    ...byHalves(config, ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'], 'OpenID Connect sign-in needs the issuer, the client id and its secret'),
    ...byHalves(config, ['GITHUB_CLIENT_ID', 'GITHUB_CLIENT_SECRET'], 'sign-in with GitHub needs the GitHub App’s client id and secret'),
    ...(config.GITHUB_APP_SLUG
      ? byHalves(config, ['GITHUB_APP_SLUG', 'GITHUB_CLIENT_ID', 'GITHUB_CLIENT_SECRET'], 'Connect GitHub needs the App’s slug and its client')
      : []),
  ];
}

/**
 * The gateway's development defaults, refused in production (beside the internal token of every
 * service): the public origin left at the loopback default, which the session routes' `Origin`
 * check would compare against. (The development account route is not mounted in production.)
 */
export function gatewayDevelopmentDefaults(
  config: OidcVariables & GitHubVariables & { PUBLIC_BASE_URL?: string | undefined; OAUTH_COOKIE_KEYS?: string[] | undefined },
): DevelopmentDefault[] {
  const oidc = oidcSettingsOf(config);
  const github = gitHubSignInSettingsOf(config);
  return [
    { inUse: !config.PUBLIC_BASE_URL, problem: 'PUBLIC_BASE_URL is required in production (the origin browsers see; the default is the loopback address)' },
    { inUse: !config.OAUTH_COOKIE_KEYS, problem: 'OAUTH_COOKIE_KEYS is required in production (the development key signing OAuth cookies is public)' },
    {
      inUse: !oidc && !github,
      problem:
        'a sign-in method is required in production (OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET, or GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET); without one nobody can sign in (the development account route does not exist there)',
    },
    {
      inUse: github !== undefined && github.allowedOrgs.length === 0 && !github.allowAny,
      problem: 'GITHUB_ALLOWED_ORGS is required in production (who may sign in with GitHub); to let every GitHub account in, say so with GITHUB_ALLOW_ANY=true',
    },
    {
      inUse: oidc !== undefined && oidc.allowedEmailDomains.length === 0 && !oidc.allowAny,
      problem: 'OIDC_ALLOWED_EMAIL_DOMAINS is required in production (who may sign in); to let every account of the issuer in, say so with OIDC_ALLOW_ANY=true',
    },
    { inUse: oidc !== undefined && !oidc.issuer.startsWith('https://'), problem: 'OIDC_ISSUER must be an https:// URL in production' },
  ];
}

/** What the gateway declares of its configuration (runService reads it; `main.ts` checks it before the service's modules load). */
export const gatewayConfiguration: ServiceConfigurationDefinition<GatewayConfigSchema> = {
  name: 'gateway',
  port: 8080,
  requireMongo: true,
  requireBus: true,
  configSchema: gatewayConfigSchema,
  configProblems: gatewayConfigProblems,
  developmentDefaults: gatewayDevelopmentDefaults,
};
