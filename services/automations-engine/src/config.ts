import { env } from '@ars/config';

export const AUTOMATIONS_ENGINE_PORT = 8084;

/** The automations engine's own variables, beside the common ones of every service (README, Configuration). */
export const automationsEngineConfigSchema = {
  /** Every route is internal: without the shared token it can serve nothing. */
  INTERNAL_TOKEN: env.string({ secret: true, minLength: 16, describe: 'a string of at least 16 characters' }),
  /** Installations, agents and models (`@ars/catalog/client`). */
  CATALOG_URL: env.url({ protocols: ['http', 'https'] }),
};
