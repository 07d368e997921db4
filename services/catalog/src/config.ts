import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { ConfigError, env, environmentOf, loadConfig, productionProblems, type DevelopmentDefault, type Environment, type EnvSource } from '@ars/config';
import { serviceSchemaOf, type ServiceConfigurationDefinition } from '@ars/service/configuration';
import { resolveKeyring, type Keyring } from '@ars/secret-box';

export const CATALOG_PORT = 8081;

/** The repository root, from this file's place (`services/catalog/src/` or `dist/`). */
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The development key's label: unchanged, so a development database's provider keys stay readable. */
const CATALOG_DEVELOPMENT_KEY_LABEL = 'agent-run-service catalog development secrets key';

/** The catalog's own variables, beside the common ones of every service. */
export const catalogConfigSchema = {
  /** Every route of the catalog is internal: without the shared token it can serve nothing. */
  INTERNAL_TOKEN: env.string({ secret: true, minLength: 16, describe: 'a string of at least 16 characters' }),
  SOURCE_HOST_DIR: env.string({ optional: true }),
  CATALOG_SECRETS_KEY: env.string({ optional: true, secret: true }),
  CATALOG_SECRETS_PREVIOUS_KEYS: env.string({ optional: true, secret: true }),
  GITHUB_APP_ID: env.string({ optional: true, pattern: '^[1-9][0-9]{0,18}$', describe: 'a GitHub App id (digits)' }),
  GITHUB_APP_PRIVATE_KEY: env.string({ optional: true, secret: true }),
  GITHUB_API_URL: env.url({ protocols: ['http', 'https'], default: 'https://api.github.com' }),
  /** The App's OAuth client (the gateway's sign-in and Connect use the same): rechecks who reaches what with a user's refresh token. */
  GITHUB_CLIENT_ID: env.string({ optional: true }),
  GITHUB_CLIENT_SECRET: env.string({ optional: true, secret: true }),
  GITHUB_WEB_URL: env.url({ protocols: ['http', 'https'], default: 'https://github.com' }),
};

/** The GitHub App as the catalog uses it: as the App (installation tokens) and, with its OAuth client, on a user's behalf. */
export interface CatalogGitHubSettings {
  appId: string;
  privateKey: string;
  apiUrl: string;
  webUrl: string;
  /** Without it a user's reach is checked only when the gateway hands over a fresh user token (sign-in, Connect). */
  client: { id: string; secret: string } | undefined;
}

export interface CatalogSettings {
  environment: Environment;
  sourceHostDir: string;
  /** The provider keys' keyring: `CATALOG_SECRETS_KEY` seals, `CATALOG_SECRETS_PREVIOUS_KEYS` still open. */
  keyring: Keyring;
  /** True when no key was configured and the development key is in use (warned at start-up). */
  developmentKey: boolean;
  github: CatalogGitHubSettings | undefined;
}

interface CatalogConfigInput {
  NODE_ENV: Environment;
  ARS_ENV?: Environment | undefined;
  INTERNAL_TOKEN?: string | undefined;
  SOURCE_HOST_DIR?: string | undefined;
  CATALOG_SECRETS_KEY?: string | undefined;
  CATALOG_SECRETS_PREVIOUS_KEYS?: string | undefined;
  GITHUB_APP_ID?: string | undefined;
  GITHUB_APP_PRIVATE_KEY?: string | undefined;
  GITHUB_API_URL: string;
  GITHUB_CLIENT_ID?: string | undefined;
  GITHUB_CLIENT_SECRET?: string | undefined;
  GITHUB_WEB_URL: string;
}

/**
 * The catalog's development defaults, refused in production: the fixed development secrets key, and
 * no GitHub App — the only source host left would be the local one, whose repositories only the dev
 * installation route (itself absent in production) creates.
 */
export function catalogDevelopmentDefaults(config: CatalogConfigInput): DevelopmentDefault[] {
  return [
    { inUse: !config.CATALOG_SECRETS_KEY, problem: 'CATALOG_SECRETS_KEY is required in production (base64 of 32 bytes; unset uses the fixed development key)' },
    {
      inUse: !config.GITHUB_APP_ID && !config.GITHUB_APP_PRIVATE_KEY,
      problem: 'GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY are required in production (the local source host is for development)',
    },
  ];
}

/**
 * The rules one variable alone cannot state: in production the development defaults are refused
 * (`catalogDevelopmentDefaults`, and the internal token of every service); the keys are base64 of 32
 * bytes (`@ars/secret-box`); the GitHub App needs both its id and its key. Throws one ConfigError naming every problem.
 */
export function resolveCatalogSettings(config: CatalogConfigInput): CatalogSettings {
  const environment = environmentOf(config);
  const problems: string[] = productionProblems(config, catalogDevelopmentDefaults(config));
  const secrets = resolveKeyring({
    variable: 'CATALOG_SECRETS_KEY',
    current: config.CATALOG_SECRETS_KEY,
    previousVariable: 'CATALOG_SECRETS_PREVIOUS_KEYS',
    previous: config.CATALOG_SECRETS_PREVIOUS_KEYS,
    developmentLabel: CATALOG_DEVELOPMENT_KEY_LABEL,
  });
  problems.push(...secrets.problems);
  if (Boolean(config.GITHUB_APP_ID) !== Boolean(config.GITHUB_APP_PRIVATE_KEY)) {
    problems.push('GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY must be set together');
  }
  if (Boolean(config.GITHUB_CLIENT_ID) !== Boolean(config.GITHUB_CLIENT_SECRET)) {
    problems.push('GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET must be set together');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    environment,
    sourceHostDir: config.SOURCE_HOST_DIR ?? join(repoRoot, '.stack', 'source-host'),
    keyring: secrets.keyring,
    developmentKey: secrets.developmentKey,
    github:
      config.GITHUB_APP_ID && config.GITHUB_APP_PRIVATE_KEY
        ? {
            appId: config.GITHUB_APP_ID,
            privateKey: config.GITHUB_APP_PRIVATE_KEY.replace(/\\n/g, '\n'),
            apiUrl: config.GITHUB_API_URL,
            webUrl: config.GITHUB_WEB_URL,
            client: config.GITHUB_CLIENT_ID && config.GITHUB_CLIENT_SECRET ? { id: config.GITHUB_CLIENT_ID, secret: config.GITHUB_CLIENT_SECRET } : undefined,
          }
        : undefined,
  };
}

/** What the catalog declares of its configuration (runService reads it; `main.ts` checks it before the service's modules load). */
export const catalogConfiguration: ServiceConfigurationDefinition<typeof catalogConfigSchema> = {
  name: 'catalog',
  port: CATALOG_PORT,
  requireMongo: true,
  requireBus: true,
  configSchema: catalogConfigSchema,
};

/** The catalog's settings from the environment, before anything starts (`resolveCatalogSettings`). Throws ConfigError. */
export function loadCatalogSettings(source: EnvSource): CatalogSettings {
  return resolveCatalogSettings(loadConfig(serviceSchemaOf(catalogConfiguration), source));
}
