import { env } from '@ars/config';
import { serviceSchemaOf, type ServiceConfigurationDefinition } from '@ars/service/configuration';

export const AUTOMATIONS_ENGINE_PORT = 8084;

/** The automations engine's own variables, beside the common ones of every service (README, Configuration). */
export const automationsEngineConfigSchema = {
  /** Every route is internal: without the shared token it can serve nothing. */
  INTERNAL_TOKEN: env.string({ secret: true, minLength: 16, describe: 'a string of at least 16 characters' }),
  /** Installations, repositories, agents and models (`@ars/catalog/client`). */
  CATALOG_URL: env.url({ protocols: ['http', 'https'] }),
  /** Where agent nodes start, read and cancel their agent runs (`@ars/runs/client`). */
  RUNS_URL: env.url({ protocols: ['http', 'https'] }),
  /** How often due timers (delay, await_event timeouts) are looked for: the lateness of a timer at most. */
  AUTOMATIONS_TIMER_POLL_MS: env.integer({ min: 50, max: 60_000, default: 250 }),
  /** How often the sweeper looks for live runs nothing changed for AUTOMATIONS_CHECK_AFTER_MS. */
  AUTOMATIONS_SWEEP_INTERVAL_MS: env.integer({ min: 100, max: 600_000, default: 5_000 }),
  /** How long a live run may go unchanged before the sweeper performs its outstanding effects again and asks after its agent runs. */
  AUTOMATIONS_CHECK_AFTER_MS: env.integer({ min: 100, max: 3_600_000, default: 15_000 }),
  /** The runs.finished consumer group's session timeout (how soon a dead instance's partitions move on). */
  AUTOMATIONS_CONSUMER_SESSION_TIMEOUT_MS: env.integer({ min: 6_000, max: 300_000, default: 10_000 }),
  /** The Kafka consumer group (tests give each running instance its own). */
  AUTOMATIONS_CONSUMER_GROUP: env.string({ default: 'automations-engine', pattern: '^[A-Za-z0-9._-]{1,100}$', describe: 'letters, digits, `.`, `_`, `-`' }),
};

/** What automations-engine declares of its configuration (runService reads it; `main.ts` checks it before the service's modules load). */
export const automationsEngineConfiguration: ServiceConfigurationDefinition<typeof automationsEngineConfigSchema> = {
  name: 'automations-engine',
  port: AUTOMATIONS_ENGINE_PORT,
  requireMongo: true,
  requireBus: true,
  configSchema: automationsEngineConfigSchema,
};

/** Every variable of the service (the common ones too): what its known secrets are taken from. */
export const automationsEngineFullConfigSchema = serviceSchemaOf(automationsEngineConfiguration);
