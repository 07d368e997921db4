import { createBus, type Bus } from '@ars/bus';
import {
  ConfigError,
  loadConfig,
  exitOnConfigError,
  productionProblems,
  serviceConfig,
  type ConfigOf,
  type DevelopmentDefault,
  type EnvSchema,
  type EnvSource,
  type ServiceConfigFragment,
} from '@ars/config';
import {
  createHttpApp,
  createMetricsApp,
  METRICS_PATH,
  mountRouters,
  runReadinessChecks,
  startHttpServer,
  type HttpApp,
  type HttpAppOptions,
  type MountableRouter,
  type ReadinessCheck,
  type RunningServer,
  type Router,
} from '@ars/http-app';
import { createLogger, type Logger } from '@ars/logger';
import { startProcessMetrics } from '@ars/metrics';
import { connectMongo, ensureIndexes, type CollectionIndexes, type Mongo } from '@ars/mongo';
import { startTelemetry, type Telemetry } from '@ars/telemetry';

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

/**
 * The runner every service's `main.ts` calls. Loads config (one line and exit 1 when wrong), starts
 * telemetry, connects Mongo (when `MONGO_URL` is set) and ensures indexes, creates the bus (when
 * `KAFKA_BROKERS` is set), builds the Koa app, composes the dependencies, adds readiness = Mongo ping +
 * bus ready + extras, mounts the routes, runs `start`, listens on METRICS_HOST:METRICS_PORT (metrics) and
 * HOST:PORT (the API) and logs one `ready` line.
 * SIGTERM/SIGINT shut it down gracefully.
 */
export async function runService<S extends EnvSchema = Record<never, never>, D = undefined>(
  definition: ServiceDefinition<S, D>,
): Promise<RunningService<S, D>> {
  const runtime = definition.runtime ?? {};
  const exit = runtime.exit ?? ((code: number) => process.exit(code));
  const handleSignals = runtime.handleSignals ?? true;

  let config: ServiceConfig<S>;
  let instance: string | undefined;
  try {
    const schema = {
      ...serviceConfig({ service: definition.name, ...(definition.port === undefined ? {} : { port: definition.port }) }),
      ...definition.configSchema,
    };
    config = loadConfig(schema, runtime.env ?? process.env) as ServiceConfig<S>;
    const problems: string[] = [];
    if (definition.requireMongo && !config.MONGO_URL) problems.push('MONGO_URL is required (a mongodb:// URL)');
    if (definition.requireBus && !config.KAFKA_BROKERS) problems.push('KAFKA_BROKERS is required (a comma-separated list of host:port)');
    problems.push(...httpEdgeProblems(config));
    problems.push(...(definition.configProblems?.(config) ?? []));
    problems.push(...productionProblems(config, definition.developmentDefaults?.(config)));
    if (problems.length > 0) throw new ConfigError(problems);
    instance = instanceId(runtime.env ?? process.env);
  } catch (error) {
    if (!handleSignals) throw error;
    return exitOnConfigError(error);
  }

  const logger = runtime.logger ?? createLogger({ service: definition.name, level: config.LOG_LEVEL });
  // Every sample of the process names the service; Node's process metrics start (GET /metrics of the metrics listener).
  startProcessMetrics(definition.name);
  const telemetry: Telemetry = startTelemetry({ serviceName: definition.name, otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });

  const hooks: { name: string; hook: ShutdownHook }[] = [];
  let mongo: Mongo | undefined;
  let bus: Bus | undefined;
  let server: RunningServer | undefined;
  let metricsServer: RunningServer | undefined;
  let shuttingDown: Promise<number> | undefined;
  let stopping = false;

  const shutdown = (reason = 'requested', exitCode = 0, timeoutMs = config.SHUTDOWN_TIMEOUT_MS): Promise<number> => {
    if (shuttingDown) return shuttingDown;
    stopping = true;
    // Stop accepting connections before saying so: whoever reads the line may rely on it.
    const httpClosed = server ? server.close() : Promise.resolve();
    httpClosed.catch(() => undefined);
    logger.info({ reason, timeout_ms: timeoutMs }, 'shutting down');
    const deadlineAt = Date.now() + timeoutMs;
    // A short deadline (a test's) keeps a quarter of itself for the closing steps.
    const closingReserveMs = Math.min(SHUTDOWN_CLOSING_RESERVE_MS, timeoutMs / 4);
    const budget: ShutdownBudget = { remainingMs: () => Math.max(0, deadlineAt - Date.now() - closingReserveMs) };
    // Each step's duration, in order, and the one under way: the deadline's line names what overran.
    const stepsMs: Record<string, number> = {};
    let stepUnderWay: string | undefined;
    const deadline = setTimeout(() => {
      logger.error({ timeout_ms: timeoutMs, step: stepUnderWay, steps_ms: stepsMs }, 'shutdown timed out; forcing exit');
      if (handleSignals) exit(1);
    }, timeoutMs);
    // In a process we own, the deadline must fire even when nothing else keeps the event loop alive
    // (a hook awaiting a promise that never settles would otherwise let the process end silently).
    if (!handleSignals) deadline.unref();
    shuttingDown = (async () => {
      let code = exitCode;
      const step = async (name: string, fn: () => Promise<void> | void): Promise<void> => {
        const startedAt = Date.now();
        stepUnderWay = name;
        try {
          await fn();
        } catch (error) {
          code = 1;
          logger.error({ err: error, step: name }, 'shutdown step failed');
        } finally {
          stepsMs[name] = Date.now() - startedAt;
          stepUnderWay = undefined;
        }
      };
      await step('http', () => httpClosed);
      logger.info('http stopped');
      for (const { name, hook } of [...hooks].reverse()) await step(name, () => hook(budget));
      if (bus) await step('bus', () => bus?.disconnect());
      if (mongo) await step('mongo', () => mongo?.close());
      // Last of the listeners: the drain above can still be scraped.
      if (metricsServer) await step('metrics', () => metricsServer?.close());
      await step('telemetry', () => telemetry.shutdown());
      clearTimeout(deadline);
      logger.info({ code, steps_ms: stepsMs }, 'stopped');
      return code;
    })();
    return shuttingDown;
  };

  if (handleSignals) {
    const onSignal = (signal: NodeJS.Signals): void => {
      if (shuttingDown) {
        logger.warn({ signal }, 'second signal; forcing exit');
        exit(1);
        return;
      }
      void shutdown(signal).then((code) => exit(code));
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    // Started by the local stack in a process group of its own: if the stack dies without stopping
    // us (SIGKILL), the pipe it holds on our stdin closes, and we stop instead of living on orphaned.
    // Promptly: the databases the stack started died with it, so a step that still needs them would
    // only wait out the whole SHUTDOWN_TIMEOUT_MS (the driver's server selection) for nothing.
    if (process.env.ARS_EXIT_WITH_PARENT === 'stdin' && !process.stdin.isTTY) {
      process.stdin.on('end', () => {
        if (!shuttingDown) void shutdown('parent exited', 0, Math.min(config.SHUTDOWN_TIMEOUT_MS, ORPHANED_SHUTDOWN_TIMEOUT_MS)).then((code) => exit(code));
      });
      process.stdin.resume();
    }
    process.on('unhandledRejection', (reason) => {
      logger.error({ err: reason }, 'unhandled promise rejection');
      void shutdown('unhandledRejection', 1).then((code) => exit(code));
    });
    process.on('uncaughtException', (error) => {
      logger.fatal({ err: error }, 'uncaught exception');
      void shutdown('uncaughtException', 1).then(() => exit(1));
    });
  }

  try {
    if (config.MONGO_URL) {
      mongo = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB, logger, appName: definition.name });
      if (definition.indexes?.length) await ensureIndexes(mongo.db, definition.indexes, logger);
    } else if (definition.indexes?.length) {
      logger.warn('MONGO_URL is not set: indexes not ensured, no database');
    }
    if (stopping) throw new Error('shut down during start-up');
    if (config.KAFKA_BROKERS) {
      bus = createBus({ brokers: config.KAFKA_BROKERS, clientId: definition.name, logger });
    }

    const checks: Record<string, ReadinessCheck> = {};
    const http = createHttpApp({
      service: definition.name,
      logger,
      ...(definition.bodyLimit ? { bodyLimit: definition.bodyLimit } : {}),
      ...(definition.skipBodyParsing ? { skipBodyParsing: definition.skipBodyParsing } : {}),
      ...(instance ? { instance } : {}),
      metrics: true,
      readiness: async () => {
        if (stopping) return { ready: false, checks: { shutdown: { ok: false, error: 'shutting down' } } };
        return runReadinessChecks(checks);
      },
    });
    const context: ServiceContext<S> = {
      name: definition.name,
      config,
      logger,
      mongo,
      bus,
      http,
      onShutdown: (hook, name = `hook ${hooks.length + 1}`) => void hooks.push({ name, hook }),
    };
    const db = mongo;
    const kafka = bus;
    if (db) checks.mongo = () => db.ping();
    if (kafka) checks.bus = () => kafka.isReady();
    const deps = await composeDeps(definition, context);
    Object.assign(checks, typeof definition.readiness === 'function' ? definition.readiness(context, deps) : definition.readiness);
    const routers = (await definition.routes?.(context, deps)) ?? [];
    if (routers.length > 0) mountRouters(context.http, ...routers);
    await definition.start?.(context, deps);

    if (stopping) throw new Error('shut down during start-up');
    const edge = {
      headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      logger,
    };
    // Metrics first: a service whose metrics port is taken fails before it takes any API traffic.
    metricsServer = await startHttpServer(createMetricsApp({ logger }), { ...edge, host: config.METRICS_HOST, port: config.METRICS_PORT }).catch(
      (error: unknown) => {
        throw portInUse(error) ? new PortInUseError(definition.name, config.METRICS_HOST, config.METRICS_PORT, 'METRICS_PORT') : error;
      },
    );
    if (stopping) throw new Error('shut down during start-up');
    server = await startHttpServer(context.http, { ...edge, host: config.HOST, port: config.PORT }).catch((error: unknown) => {
      throw portInUse(error) ? new PortInUseError(definition.name, config.HOST, config.PORT) : error;
    });
    const metricsUrl = `${metricsServer.url}${METRICS_PATH}`;
    logger.info(
      {
        address: server.url,
        host: server.host,
        port: server.port,
        metrics: metricsUrl,
        mongo: Boolean(mongo),
        bus: Boolean(bus),
        telemetry: telemetry.enabled,
      },
      'ready',
    );
    return { context, deps, server, url: server.url, metricsServer, metricsUrl, shutdown };
  } catch (error) {
    if (error instanceof PortInUseError) {
      // One line a person (or the local stack, which reports it) reads; the structured log has it too.
      if (handleSignals) process.stderr.write(`${error.message}\n`);
      logger.fatal({ host: error.host, port: error.port }, 'port in use');
    } else if (error instanceof ComposeError) {
      // Like a configuration error: one line naming the cause, not a stack trace.
      if (handleSignals) process.stderr.write(`${error.message}\n`);
      logger.fatal({ err: error.cause }, 'compose failed');
    } else {
      logger.fatal({ err: error }, 'start-up failed');
    }
    await shutdown('start-up failed', 1);
    if (handleSignals) exit(1);
    // In-process callers (tests) see what compose threw, not the wrapper.
    throw error instanceof ComposeError ? error.cause : error;
  }
}

/** Runs `compose` (undefined without it), marking its failure so start-up can name it. */
async function composeDeps<S extends EnvSchema, D>(definition: ServiceDefinition<S, D>, context: ServiceContext<S>): Promise<D> {
  if (!definition.compose) return undefined as D;
  try {
    return await definition.compose(context);
  } catch (error) {
    throw new ComposeError(definition.name, error);
  }
}

/** `compose` threw: the service cannot build its dependencies. */
class ComposeError extends Error {
  constructor(service: string, cause: unknown) {
    super(`${service}: cannot compose its dependencies: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'ComposeError';
  }
}

/** The service cannot listen: another process has its port. */
export class PortInUseError extends Error {
  constructor(
    service: string,
    readonly host: string,
    readonly port: number,
    /** The setting naming the port, when it is not the API's own (`PORT`). */
    setting?: string,
  ) {
    super(`${service}: cannot listen on ${host}:${port}${setting ? ` (${setting})` : ''}: the port is in use by another process (EADDRINUSE)`);
    this.name = 'PortInUseError';
  }
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

function portInUse(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';
}

const INSTANCE_ID = /^[A-Za-z0-9_-]{1,128}$/;
/** The shutdown deadline of a service whose parent (the local stack) died without stopping it. */
export const ORPHANED_SHUTDOWN_TIMEOUT_MS = 3_000;

/**
 * What the steps after the hooks (the bus, MongoDB, the metrics listener, telemetry) are kept of the
 * shutdown's time: a hook's budget ends this long before the deadline.
 */
export const SHUTDOWN_CLOSING_RESERVE_MS = 2_000;

/** `ARS_INSTANCE_ID`: given by whoever started the process, answered on /healthz and /readyz. */
function instanceId(env: EnvSource): string | undefined {
  const value = env.ARS_INSTANCE_ID;
  if (value === undefined || value === '') return undefined;
  if (!INSTANCE_ID.test(value)) throw new ConfigError([`ARS_INSTANCE_ID must be 1 to 128 letters, digits, _ or - (got ${JSON.stringify(value.slice(0, 40))})`]);
  return value;
}
