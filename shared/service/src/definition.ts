// What a service declares (ServiceDefinition), what its hooks are handed (ServiceContext) and what
// runService answers (RunningService).
import type { Bus } from '@ars/bus';
import type { ConfigOf, DevelopmentDefault, EnvSchema, EnvSource, ServiceConfigFragment } from '@ars/config';
import type { HttpApp, HttpAppOptions, MountableRouter, ReadinessCheck, RunningServer, Router } from '@ars/http-app';
import type { Logger } from '@ars/logger';
import type { CollectionIndexes, Mongo } from '@ars/mongo';

/** The configuration a service sees: the common settings plus its own `configSchema`. */
export type ServiceConfig<S extends EnvSchema = EnvSchema> = ConfigOf<ServiceConfigFragment> & ConfigOf<S>;

/** What a shutdown hook may know of the shutdown's deadline. */
export interface ShutdownBudget {
  /**
   * How long this hook may still take: the time left before the shutdown's deadline
   * (SHUTDOWN_TIMEOUT_MS from the signal), less what the closing steps after the hooks are kept
   * (SHUTDOWN_CLOSING_RESERVE_MS, or a quarter of a shorter timeout), never below 0. A hook that
   * waits on work of its own (a drain, a stop) waits at most this long, so that every later hook
   * still runs and the process exits 0 on time.
   */
  remainingMs(): number;
}

export type ShutdownHook = (budget: ShutdownBudget) => Promise<void> | void;

export interface ServiceContext<S extends EnvSchema = EnvSchema> {
  name: string;
  config: ServiceConfig<S>;
  logger: Logger;
  /** Present when `MONGO_URL` is set (indexes already ensured). */
  mongo: Mongo | undefined;
  /** Present when `KAFKA_BROKERS` is set (created, connecting lazily). */
  bus: Bus | undefined;
  /** The Koa app (routes are mounted from `routes`; plain `http.use` works too). */
  http: HttpApp;
  /** Registers work to do on shutdown, after HTTP stops and before the bus and Mongo close; run in reverse order. */
  onShutdown(hook: ShutdownHook, name?: string): void;
}

/** Builds what the hooks work with (stores, clients, settings) from the ready context; see `compose`. */
export type Compose<S extends EnvSchema, D> = (ctx: ServiceContext<S>) => D | Promise<D>;

/**
 * A service's declaration. `D` is what `compose` returns: every hook after it receives it typed
 * (list `compose` before the hooks in the object literal, so TypeScript infers `D` before typing them).
 */
export interface ServiceDefinition<S extends EnvSchema = EnvSchema, D = undefined> {
  /** The service name: logs, telemetry, Kafka client id, default database `ars_<name>`. */
  name: string;
  /** The default HTTP port (`PORT` overrides it; without it `PORT` is required). */
  port?: number;
  /** The service's own environment variables (beside the common ones). */
  configSchema?: S;
  /** Fails start-up when `MONGO_URL` is not set. */
  requireMongo?: boolean;
  /** Fails start-up when `KAFKA_BROKERS` is not set. */
  requireBus?: boolean;
  /**
   * The development defaults this configuration relies on (stand-ins, dev-only sources): refused
   * under `ARS_ENV=production`, beside the rule of every service (`INTERNAL_TOKEN` required).
   */
  developmentDefaults?: (config: ServiceConfig<S>) => readonly DevelopmentDefault[];
  /** Settings that cannot work together, in any environment (each a clause naming the variables): start-up fails naming them. */
  configProblems?: (config: ServiceConfig<S>) => readonly string[];
  /** Indexes ensured at start-up (needs Mongo). */
  indexes?: readonly CollectionIndexes[];
  /**
   * The composition step: builds the service's dependencies once, after config, Mongo and the bus
   * are ready and before readiness, routes and `start`; what it opens it closes with `ctx.onShutdown`.
   * A throw stops start-up (one line on stderr, what was opened closed, exit 1). Without it, `deps` is undefined.
   */
  compose?: Compose<S, D>;
  /** Extra readiness checks beside Mongo ping and bus readiness. */
  readiness?: Record<string, ReadinessCheck> | ((ctx: ServiceContext<S>, deps: D) => Record<string, ReadinessCheck>);
  /** Builds the routers to mount. */
  routes?: (ctx: ServiceContext<S>, deps: D) => readonly (Router | MountableRouter)[] | void | Promise<readonly (Router | MountableRouter)[] | void>;
  /** Starts consumers, relays, timers — register their stop with `ctx.onShutdown`. Runs before HTTP listens. */
  start?: (ctx: ServiceContext<S>, deps: D) => Promise<void> | void;
  /** JSON body limit (default 1mb). */
  bodyLimit?: string;
  /** Requests the JSON body parser leaves to the route (see `@ars/http-app` `readRawBody`). */
  skipBodyParsing?: HttpAppOptions['skipBodyParsing'];
  /** Process integration; tests running a service in-process turn these off. */
  runtime?: {
    /** Default `process.env`. */
    env?: EnvSource;
    /** Install SIGTERM/SIGINT handlers and exit at the end of shutdown (default true). */
    handleSignals?: boolean;
    /** Default `process.exit`. */
    exit?: (code: number) => void;
    /** Logger to use instead of a new stdout one. */
    logger?: Logger;
  };
}

/** A started service; `D` is what its `compose` built (`unknown` when only the service matters, as in a list of them). */
export interface RunningService<S extends EnvSchema = EnvSchema, D = unknown> {
  context: ServiceContext<S>;
  /** What `compose` built (undefined without it). */
  deps: D;
  server: RunningServer;
  /** `http://host:port` */
  url: string;
  /** The metrics listener (`METRICS_HOST:METRICS_PORT`): `GET /metrics`, which the API's port does not serve. */
  metricsServer: RunningServer;
  /** `http://host:port/metrics` */
  metricsUrl: string;
  /** Graceful shutdown (what SIGTERM does); resolves with the exit code it chose. */
  shutdown(reason?: string): Promise<number>;
}
