import { env, type EnvSource } from '@ars/config';
import { loadServiceConfiguration, serviceSchemaOf, type ServiceConfigurationDefinition } from '@ars/service/configuration';

export const RUNS_PORT = 8082;

/** The runs service's own variables, beside the common ones of every service (README, Configuration). */
export const runsConfigSchema = {
  /** Where repositories are checked (`GET /internal/users/:userId/repos/:repoId`). */
  CATALOG_URL: env.url({ protocols: ['http', 'https'] }),
  /** Where cancels go (`POST /internal/runs/:runId/cancel`). */
  SANDBOXES_URL: env.url({ protocols: ['http', 'https'] }),
  /** The harness limit sent to sandboxes with every run (`timeoutMs` of `runs.requested`). */
  RUN_TIMEOUT_MS: env.integer({ min: 1_000, default: 1_800_000 }),
  /** A run not allocated a sandbox this long after it was created is failed (`startBy`). */
  RUN_START_TIMEOUT_MS: env.integer({ min: 1_000, default: 120_000 }),
  /** A live run with no result by createdAt + RUN_TIMEOUT_MS + this is failed as lost. */
  RUN_LOST_GRACE_MS: env.integer({ min: 0, default: 60_000 }),
  /** How often the watchdog looks for overdue runs. */
  WATCHDOG_INTERVAL_MS: env.integer({ min: 100, default: 5_000 }),
  /**
   * The consumer group's session timeout: how soon the partitions of an instance that died without
   * leaving (kill -9, lost host) move to a live one. Heartbeats every tenth of it.
   */
  RUNS_CONSUMER_SESSION_TIMEOUT_MS: env.integer({ min: 6_000, max: 300_000, default: 10_000 }),
  /**
   * Redis, where runs announces each change of a run to the gateway's event streams (`@ars/run-signals`).
   * Optional: without it the streams read every run on their 200 ms poll.
   */
  REDIS_URL: env.url({ optional: true, protocols: ['redis', 'rediss'] }),
  /** The Kafka consumer group (tests give each running instance its own). */
  RUNS_CONSUMER_GROUP: env.string({ default: 'runs', pattern: '^[A-Za-z0-9._-]{1,100}$', describe: 'letters, digits, `.`, `_`, `-`' }),
};

/**
 * What runs declares of its configuration (runService reads it; `main.ts` checks it before the
 * service's modules load): beside the variables' own rules, what runs cannot do without — MongoDB,
 * Kafka and the internal token (every route of runs is internal: without the token it could serve nothing).
 */
export const runsConfiguration: ServiceConfigurationDefinition<typeof runsConfigSchema> = {
  name: 'runs',
  port: RUNS_PORT,
  requireMongo: true,
  requireBus: true,
  configSchema: runsConfigSchema,
  configProblems: (config) => (config.INTERNAL_TOKEN ? [] : ['INTERNAL_TOKEN is required (a string of at least 16 characters)']),
};

/** Every variable of the service (the common ones too): what its known secrets are taken from. */
export const runsFullConfigSchema = serviceSchemaOf(runsConfiguration);

/** Checks the whole configuration and names every problem in one line. Throws ConfigError. */
export function checkRunsConfig(source: EnvSource): void {
  loadServiceConfiguration(runsConfiguration, source);
}
