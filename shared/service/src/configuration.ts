// Start-up's first step: the service's configuration, read once and checked whole. Every problem
// is named together (one ConfigError), before anything is opened. Also the package's light entry
// (`@ars/service/configuration`): a service's `main.ts` checks its configuration with it before it
// loads the service's modules (a fifth of their cost), so a refused configuration exits at once.
import {
  ConfigError,
  exitOnConfigError,
  loadConfig,
  productionProblems,
  serviceConfig,
  type ConfigOf,
  type EnvSchema,
  type EnvSource,
  type ServiceConfigFragment,
} from '@ars/config';
import type { ServiceConfig, ServiceDefinition } from './definition.js';

export { SHUTDOWN_CLOSING_RESERVE_MS } from './shutdown.js';

/** A service's whole schema: the common variables and its own. */
export type ConfigSchemaOf<S extends EnvSchema> = ReturnType<typeof serviceConfig> & S;

/** What a service declares about its configuration: the part of its ServiceDefinition this check reads. */
export type ServiceConfigurationDefinition<S extends EnvSchema> = Pick<
  ServiceDefinition<S, unknown>,
  'name' | 'port' | 'configSchema' | 'requireMongo' | 'requireBus' | 'configProblems' | 'developmentDefaults'
>;

export interface ServiceConfiguration<S extends EnvSchema> {
  config: ServiceConfig<S>;
  /** `ARS_INSTANCE_ID`, when whoever started the process gave one (answered on /healthz and /readyz). */
  instance: string | undefined;
}

/** Throws ConfigError naming every problem: a variable missing or malformed, settings that cannot work together, development defaults in production. */
export function loadServiceConfiguration<S extends EnvSchema>(definition: ServiceConfigurationDefinition<S>, env: EnvSource): ServiceConfiguration<S> {
  const config: ServiceConfig<S> = loadConfig(serviceSchemaOf(definition), env);
  const problems: string[] = [];
  if (definition.requireMongo && !config.MONGO_URL) problems.push('MONGO_URL is required (a mongodb:// URL)');
  if (definition.requireBus && !config.KAFKA_BROKERS) problems.push('KAFKA_BROKERS is required (a comma-separated list of host:port)');
  problems.push(...httpEdgeProblems(config));
  problems.push(...(definition.configProblems?.(config) ?? []));
  problems.push(...productionProblems(config, definition.developmentDefaults?.(config)));
  if (problems.length > 0) throw new ConfigError(problems);
  return { config, instance: instanceId(env) };
}

/**
 * `main.ts`'s first step: the checks the service's start makes, before its modules load — its own
 * (`ownChecks`, those it makes before `runService`, throwing ConfigError), then `runService`'s. A
 * refused configuration is one line on stderr and exit 1, as from the start itself.
 */
export function checkServiceConfiguration<S extends EnvSchema>(
  definition: ServiceConfigurationDefinition<S>,
  ownChecks?: (env: EnvSource) => unknown,
  env: EnvSource = process.env,
): void {
  try {
    ownChecks?.(env);
    loadServiceConfiguration(definition, env);
  } catch (error) {
    exitOnConfigError(error);
  }
}

// One merged schema per service (its own variables and the common ones): `loadConfig` compiles a
// validator per schema object, and `main.ts`'s check and the start load the same configuration.
const mergedSchemas = new WeakMap<EnvSchema, Map<string, EnvSchema>>();
const NO_OWN_VARIABLES: EnvSchema = {};

/** Every variable of a service, its own and the common ones: the schema its configuration is loaded with (one object per service). */
export function serviceSchemaOf<S extends EnvSchema>(definition: ServiceConfigurationDefinition<S>): ConfigSchemaOf<S> {
  const own: EnvSchema = definition.configSchema ?? NO_OWN_VARIABLES;
  const key = `${definition.name}:${definition.port ?? ''}`;
  let byService = mergedSchemas.get(own);
  if (!byService) mergedSchemas.set(own, (byService = new Map()));
  let schema = byService.get(key);
  if (!schema) {
    schema = { ...serviceConfig({ service: definition.name, ...(definition.port === undefined ? {} : { port: definition.port }) }), ...own };
    byService.set(key, schema);
  }
  return schema as ConfigSchemaOf<S>;
}

/** The HTTP edge settings that cannot work together (a clause each, naming the variables). */
function httpEdgeProblems(config: ConfigOf<ServiceConfigFragment>): string[] {
  const problems: string[] = [];
  if (config.HTTP_HEADERS_TIMEOUT_MS > config.HTTP_REQUEST_TIMEOUT_MS) {
    problems.push(
      `HTTP_HEADERS_TIMEOUT_MS (${config.HTTP_HEADERS_TIMEOUT_MS}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${config.HTTP_REQUEST_TIMEOUT_MS}): the headers are part of the request`,
    );
  }
  if (config.METRICS_PORT !== 0 && config.METRICS_PORT === config.PORT) {
    problems.push(`METRICS_PORT must differ from PORT (both ${config.PORT}): metrics have a listener of their own, never the API's port`);
  }
  return problems;
}

const INSTANCE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** `ARS_INSTANCE_ID`: given by whoever started the process, answered on /healthz and /readyz. */
function instanceId(env: EnvSource): string | undefined {
  const value = env.ARS_INSTANCE_ID;
  if (value === undefined || value === '') return undefined;
  if (!INSTANCE_ID.test(value)) throw new ConfigError([`ARS_INSTANCE_ID must be 1 to 128 letters, digits, _ or - (got ${JSON.stringify(value.slice(0, 40))})`]);
  return value;
}
