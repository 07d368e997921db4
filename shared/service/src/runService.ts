// The runner every service's `main.ts` calls, as its steps: configuration (configuration.ts), the
// infrastructure, the app and the listeners (startup.ts), and the shutdown (shutdown.ts) that
// SIGTERM, a failed start-up or a caller runs (processSignals.ts).
import { exitOnConfigError, type EnvSchema } from '@ars/config';
import { METRICS_PATH } from '@ars/http-app';
import { createLogger } from '@ars/logger';
import { startProcessMetrics } from '@ars/metrics';
import { startTelemetry } from '@ars/telemetry';
import { loadServiceConfiguration, type ServiceConfiguration } from './configuration.js';
import type { RunningService, ServiceDefinition } from './definition.js';
import { shutDownOnProcessEvents } from './processSignals.js';
import { ServiceShutdown } from './shutdown.js';
import { buildApp, listen, openInfrastructure, reportStartupFailure, unlessShuttingDown } from './startup.js';

/**
 * Loads config (one line and exit 1 when wrong), starts telemetry, connects Mongo (when `MONGO_URL`
 * is set) and ensures indexes, creates the bus (when `KAFKA_BROKERS` is set), builds the Koa app,
 * composes the dependencies, adds readiness = Mongo ping + bus ready + extras, mounts the routes,
 * runs `start`, listens on METRICS_HOST:METRICS_PORT (metrics) and HOST:PORT (the API) and logs one
 * `ready` line. SIGTERM/SIGINT shut it down gracefully.
 */
export async function runService<S extends EnvSchema = Record<never, never>, D = undefined>(
  definition: ServiceDefinition<S, D>,
): Promise<RunningService<S, D>> {
  const runtime = definition.runtime ?? {};
  const exit = runtime.exit ?? ((code: number) => process.exit(code));
  const ownProcess = runtime.handleSignals ?? true;

  let configuration: ServiceConfiguration<S>;
  try {
    configuration = loadServiceConfiguration(definition, runtime.env ?? process.env);
  } catch (error) {
    if (!ownProcess) throw error;
    return exitOnConfigError(error);
  }
  const { config, instance } = configuration;
  const logger = runtime.logger ?? createLogger({ service: definition.name, level: config.LOG_LEVEL });
  // Every sample of the process names the service; Node's process metrics start (GET /metrics of the metrics listener).
  startProcessMetrics(definition.name);
  const telemetry = startTelemetry({ serviceName: definition.name, otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const shutdown = new ServiceShutdown(telemetry, { logger, timeoutMs: config.SHUTDOWN_TIMEOUT_MS, exitOnDeadline: ownProcess ? exit : undefined });
  if (ownProcess) shutDownOnProcessEvents(shutdown, { logger, exit, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS });

  try {
    await openInfrastructure(definition, config, logger, shutdown);
    const { context, deps } = await buildApp(definition, { config, logger, instance }, shutdown);
    unlessShuttingDown(shutdown);
    await listen(definition.name, context, shutdown);
    const { server, metricsServer, mongo, bus } = shutdown.opened;
    if (!server || !metricsServer) throw new Error('start-up ended without its listeners');
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
    return { context, deps, server, url: server.url, metricsServer, metricsUrl, shutdown: (reason) => shutdown.run(reason) };
  } catch (error) {
    const cause = reportStartupFailure(error, logger, ownProcess);
    await shutdown.run('start-up failed', 1);
    if (ownProcess) exit(1);
    throw cause;
  }
}
