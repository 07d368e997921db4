import { env } from '@ars/config';
import { serviceSchemaOf, type ServiceConfigurationDefinition } from '@ars/service/configuration';

export const PR_REVIEW_PORT = 8085;

/** pr-review's own variables, beside the common ones of every service (README, Configuration). */
export const prReviewConfigSchema = {
  /** Every route is internal: without the shared token it can serve nothing. */
  INTERNAL_TOKEN: env.string({ secret: true, minLength: 16, describe: 'a string of at least 16 characters' }),
  /** Repositories and their source-host access (`@ars/catalog/client` `repoAccess`). */
  CATALOG_URL: env.url({ protocols: ['http', 'https'] }),
  /** The review automations and their runs (`@ars/automations-engine/client`). */
  AUTOMATIONS_ENGINE_URL: env.url({ protocols: ['http', 'https'] }),
  /** The local source host's directory (the catalog's `SOURCE_HOST_DIR`); default `.stack/source-host` of the checkout. */
  SOURCE_HOST_DIR: env.string({ optional: true }),
  /** The GitHub REST API the GitHub App's installations are reached at. */
  GITHUB_API_URL: env.url({ protocols: ['http', 'https'], default: 'https://api.github.com' }),
  /** The GitHub App's webhook secret: deliveries are verified with it (X-Hub-Signature-256); unset, GitHub deliveries are refused (503). */
  GITHUB_WEBHOOK_SECRET: env.string({ optional: true, secret: true, minLength: 16, describe: 'a string of at least 16 characters' }),
  /** The login the source host shows our reviews and comments under: only its comments' markers count. */
  PR_REVIEW_APP_LOGIN: env.string({ default: 'agent-run-service[bot]', pattern: '^[A-Za-z0-9][A-Za-z0-9._\\[\\]-]{0,99}$', describe: 'a login' }),
  /** How often attempts whose report is due (a source-host failure waiting out its Retry-After) are looked for. */
  PR_REVIEW_REPORT_POLL_MS: env.integer({ min: 50, max: 600_000, default: 1_000 }),
  /** The automations.dispatch consumer group (tests give each running instance its own). */
  PR_REVIEW_CONSUMER_GROUP: env.string({ default: 'pr-review', pattern: '^[A-Za-z0-9._-]{1,100}$', describe: 'letters, digits, `.`, `_`, `-`' }),
};

/** What pr-review declares of its configuration (runService reads it; `main.ts` checks it before the service's modules load). */
export const prReviewConfiguration: ServiceConfigurationDefinition<typeof prReviewConfigSchema> = {
  name: 'pr-review',
  port: PR_REVIEW_PORT,
  requireMongo: true,
  requireBus: true,
  configSchema: prReviewConfigSchema,
};

/** Every variable of the service (the common ones too): what its known secrets are taken from. */
export const prReviewFullConfigSchema = serviceSchemaOf(prReviewConfiguration);
