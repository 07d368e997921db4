import { ConfigError, env, environmentOf, loadConfig, productionProblems, type DevelopmentDefault, type Environment, type EnvSource } from '@ars/config';
import { serviceSchemaOf, type ServiceConfigurationDefinition } from '@ars/service/configuration';
import { resolveKeyring, type Keyring } from '@ars/secret-box';

export const MCP_REGISTRY_PORT = 8086;

/** The development key's label (`@ars/secret-box` `developmentKey`): fixed, so a development database stays readable. */
const DEVELOPMENT_KEY_LABEL = 'agent-run-service mcp-registry development secrets key';

/** mcp-registry's own variables, beside the common ones of every service (README, Configuration). */
export const mcpRegistryConfigSchema = {
  /** Every route is internal: without the shared token it can serve nothing. */
  INTERNAL_TOKEN: env.string({ secret: true, minLength: 16, describe: 'a string of at least 16 characters' }),
  /** `<base64 of 32 bytes>` or `<keyId>:<base64>`: the key that seals tool server configs. */
  MCP_REGISTRY_SECRETS_KEY: env.string({ optional: true, secret: true }),
  /** Comma-separated `<keyId>:<base64>`: older keys that still open what they sealed (rotation). */
  MCP_REGISTRY_SECRETS_PREVIOUS_KEYS: env.string({ optional: true, secret: true }),
};

export interface McpRegistrySettings {
  environment: Environment;
  keyring: Keyring;
  /** True when no key was configured and the development key is in use (warned at start-up). */
  developmentKey: boolean;
}

interface McpRegistryConfigInput {
  NODE_ENV: Environment;
  ARS_ENV?: Environment | undefined;
  INTERNAL_TOKEN?: string | undefined;
  MCP_REGISTRY_SECRETS_KEY?: string | undefined;
  MCP_REGISTRY_SECRETS_PREVIOUS_KEYS?: string | undefined;
}

/** The development default refused in production: the fixed development secrets key. */
export function mcpRegistryDevelopmentDefaults(config: McpRegistryConfigInput): DevelopmentDefault[] {
  return [
    {
      inUse: !config.MCP_REGISTRY_SECRETS_KEY,
      problem: 'MCP_REGISTRY_SECRETS_KEY is required in production (base64 of 32 bytes; unset uses the fixed development key)',
    },
  ];
}

/**
 * The rules one variable alone cannot state: in production the development key (and the common
 * defaults, the internal token) are refused; the keys are base64 of 32 bytes (`@ars/secret-box`).
 * Throws one ConfigError naming every problem, never a value.
 */
export function resolveMcpRegistrySettings(config: McpRegistryConfigInput): McpRegistrySettings {
  const problems = productionProblems(config, mcpRegistryDevelopmentDefaults(config));
  const secrets = resolveKeyring({
    variable: 'MCP_REGISTRY_SECRETS_KEY',
    current: config.MCP_REGISTRY_SECRETS_KEY,
    previousVariable: 'MCP_REGISTRY_SECRETS_PREVIOUS_KEYS',
    previous: config.MCP_REGISTRY_SECRETS_PREVIOUS_KEYS,
    developmentLabel: DEVELOPMENT_KEY_LABEL,
  });
  problems.push(...secrets.problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return { environment: environmentOf(config), keyring: secrets.keyring, developmentKey: secrets.developmentKey };
}

/** What mcp-registry declares of its configuration (runService reads it; `main.ts` checks it before the service's modules load). */
export const mcpRegistryConfiguration: ServiceConfigurationDefinition<typeof mcpRegistryConfigSchema> = {
  name: 'mcp-registry',
  port: MCP_REGISTRY_PORT,
  requireMongo: true,
  requireBus: true,
  configSchema: mcpRegistryConfigSchema,
};

/** The service's settings from the environment, before anything starts (`resolveMcpRegistrySettings`). Throws ConfigError. */
export function loadMcpRegistrySettings(source: EnvSource): McpRegistrySettings {
  return resolveMcpRegistrySettings(loadConfig(serviceSchemaOf(mcpRegistryConfiguration), source));
}
