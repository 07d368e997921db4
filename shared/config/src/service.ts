import { env } from './variables.js';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export const ENVIRONMENTS = ['development', 'test', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export interface ServiceConfigOptions {
  /** The service's name, e.g. `runs`; the default database is `ars_<service>`. */
  service: string;
  /** The default HTTP port; without it `PORT` is required. */
  port?: number;
}

/** `host:port` items of `KAFKA_BROKERS`. */
const BROKER = '^[^\\s:,/]+:\\d{1,5}$';

/**
 * The settings every service reads, as a fragment to spread into a service's own schema:
 * `loadConfig({ ...serviceConfig({ service: 'runs', port: 8082 }), RUNS_FOO: env.string() })`.
 */
export function serviceConfig(options: ServiceConfigOptions) {
  return {
    HOST: env.string({ default: '127.0.0.1' }),
    PORT: options.port === undefined ? env.port() : env.port({ default: options.port }),
    LOG_LEVEL: env.oneOf(LOG_LEVELS, { default: 'info' }),
    MONGO_URL: env.url({ optional: true, protocols: ['mongodb', 'mongodb+srv'] }),
    MONGO_DB: env.string({
      default: `ars_${options.service.replace(/[^A-Za-z0-9_-]/g, '_')}`,
      pattern: '^[A-Za-z0-9_-]{1,63}$',
      describe: 'a database name (letters, digits, _ and -)',
    }),
    KAFKA_BROKERS: env.list({ optional: true, pattern: BROKER, describe: 'a comma-separated list of host:port' }),
    OTEL_EXPORTER_OTLP_ENDPOINT: env.url({ optional: true, protocols: ['http', 'https'] }),
    INTERNAL_TOKEN: env.string({ optional: true, secret: true, minLength: 16, describe: 'a string of at least 16 characters' }),
    SHUTDOWN_TIMEOUT_MS: env.integer({ default: 10_000, min: 0, max: 600_000 }),
    // The metrics listener is internal: loopback unless the deployment opens it (the chart: 0.0.0.0,
    // admitted by its NetworkPolicy); port 0 picks a free one (in-process tests, a service run by hand).
    METRICS_HOST: env.string({ default: '127.0.0.1' }),
    METRICS_PORT: env.integer({ default: 0, min: 0, max: 65_535 }),
    // The HTTP server's edge (shared/http-app README, "Timeouts"; the same defaults as startHttpServer's):
    // how long a client may take to send its headers and its whole request, how long an idle
    // keep-alive connection is kept.
    HTTP_HEADERS_TIMEOUT_MS: env.integer({ default: 10_000, min: 1, max: 600_000 }),
    HTTP_REQUEST_TIMEOUT_MS: env.integer({ default: 30_000, min: 1, max: 600_000 }),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: env.integer({ default: 65_000, min: 1, max: 600_000 }),
    NODE_ENV: env.oneOf(ENVIRONMENTS, { default: 'development' }),
    ARS_ENV: env.oneOf(ENVIRONMENTS, { optional: true }),
  };
}

export type ServiceConfigFragment = ReturnType<typeof serviceConfig>;

/** The deployment environment: `ARS_ENV` when set, else `NODE_ENV`. */
export function environmentOf(config: { NODE_ENV: Environment; ARS_ENV?: Environment | undefined }): Environment {
  return config.ARS_ENV ?? config.NODE_ENV;
}
