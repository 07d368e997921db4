// Start-up's steps after the configuration: the infrastructure (MongoDB and its indexes, the bus),
// the app (the Koa app, the context, compose, readiness, routes, `start`), then the listeners
// (metrics first, then the API). A shutdown begun meanwhile stops start-up at its next step.
import { createBus } from '@ars/bus';
import type { EnvSchema } from '@ars/config';
import { createHttpApp, createMetricsApp, mountRouters, runReadinessChecks, startHttpServer, type HttpApp, type ReadinessCheck } from '@ars/http-app';
import type { Logger } from '@ars/logger';
import { connectMongo, ensureIndexes } from '@ars/mongo';
import type { ServiceConfig, ServiceContext, ServiceDefinition } from './definition.js';
import type { ServiceShutdown } from './shutdown.js';

/** Thrown at a step of start-up when a shutdown began meanwhile. */
export function unlessShuttingDown(shutdown: ServiceShutdown): void {
  if (shutdown.started) throw new Error('shut down during start-up');
}

/** MongoDB (when MONGO_URL is set) with the definition's indexes, and the bus (when KAFKA_BROKERS is set), recorded as opened. */
export async function openInfrastructure<S extends EnvSchema, D>(
  definition: ServiceDefinition<S, D>,
  config: ServiceConfig<S>,
  logger: Logger,
  shutdown: ServiceShutdown,
): Promise<void> {
  if (config.MONGO_URL) {
    const mongo = await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB, logger, appName: definition.name });
    shutdown.opened.mongo = mongo;
    if (definition.indexes?.length) await ensureIndexes(mongo.db, definition.indexes, logger);
  } else if (definition.indexes?.length) {
    logger.warn('MONGO_URL is not set: indexes not ensured, no database');
  }
  unlessShuttingDown(shutdown);
  if (config.KAFKA_BROKERS) shutdown.opened.bus = createBus({ brokers: config.KAFKA_BROKERS, clientId: definition.name, logger });
}

export interface BuiltApp<S extends EnvSchema, D> {
  context: ServiceContext<S>;
  deps: D;
}

/** The Koa app with readiness (MongoDB ping, bus, the definition's checks; 503 once shutting down), the context, compose, the routes, `start`. */
export async function buildApp<S extends EnvSchema, D>(
  definition: ServiceDefinition<S, D>,
  base: { config: ServiceConfig<S>; logger: Logger; instance: string | undefined },
  shutdown: ServiceShutdown,
): Promise<BuiltApp<S, D>> {
  const { mongo, bus } = shutdown.opened;
  const checks: Record<string, ReadinessCheck> = {};
  if (mongo) checks.mongo = () => mongo.ping();
  if (bus) checks.bus = () => bus.isReady();
  const http: HttpApp = createHttpApp({
    service: definition.name,
    logger: base.logger,
    ...(definition.bodyLimit ? { bodyLimit: definition.bodyLimit } : {}),
    ...(definition.skipBodyParsing ? { skipBodyParsing: definition.skipBodyParsing } : {}),
    ...(base.instance ? { instance: base.instance } : {}),
    metrics: true,
    readiness: async () => {
      if (shutdown.started) return { ready: false, checks: { shutdown: { ok: false, error: 'shutting down' } } };
      return runReadinessChecks(checks);
    },
  });
  const context: ServiceContext<S> = {
    name: definition.name,
    config: base.config,
    logger: base.logger,
    mongo,
    bus,
    http,
    onShutdown: (hook, name) => shutdown.onShutdown(hook, name),
  };
  const deps = await composeDeps(definition, context);
  Object.assign(checks, typeof definition.readiness === 'function' ? definition.readiness(context, deps) : definition.readiness);
  const routers = (await definition.routes?.(context, deps)) ?? [];
  if (routers.length > 0) mountRouters(context.http, ...routers);
  await definition.start?.(context, deps);
  return { context, deps };
}

/** The metrics listener first (a service whose metrics port is taken fails before it takes any API traffic), then the API's. */
export async function listen<S extends EnvSchema>(name: string, context: ServiceContext<S>, shutdown: ServiceShutdown): Promise<void> {
  const { config, logger } = context;
  const edge = {
    headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    logger,
  };
  shutdown.opened.metricsServer = await startHttpServer(createMetricsApp({ logger }), { ...edge, host: config.METRICS_HOST, port: config.METRICS_PORT }).catch(
    (error: unknown) => {
      throw portInUse(error) ? new PortInUseError(name, config.METRICS_HOST, config.METRICS_PORT, 'METRICS_PORT') : error;
    },
  );
  unlessShuttingDown(shutdown);
  shutdown.opened.server = await startHttpServer(context.http, { ...edge, host: config.HOST, port: config.PORT }).catch((error: unknown) => {
    throw portInUse(error) ? new PortInUseError(name, config.HOST, config.PORT) : error;
  });
}

/**
 * A failed start-up said once, in the form its cause calls for: a port in use or a failed compose as
 * one line on stderr (in a process of its own), anything else with its stack in the log. Answers
 * what in-process callers (tests) should see: what compose threw, not the wrapper.
 */
export function reportStartupFailure(error: unknown, logger: Logger, ownProcess: boolean): unknown {
  if (error instanceof PortInUseError) {
    // One line a person (or the local stack, which reports it) reads; the structured log has it too.
    if (ownProcess) process.stderr.write(`${error.message}\n`);
    logger.fatal({ host: error.host, port: error.port }, 'port in use');
  } else if (error instanceof ComposeError) {
    // Like a configuration error: one line naming the cause, not a stack trace.
    if (ownProcess) process.stderr.write(`${error.message}\n`);
    logger.fatal({ err: error.cause }, 'compose failed');
  } else {
    logger.fatal({ err: error }, 'start-up failed');
  }
  return error instanceof ComposeError ? error.cause : error;
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

function portInUse(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';
}
