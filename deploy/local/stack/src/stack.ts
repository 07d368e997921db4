import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startInfrastructure, type Infrastructure, type InfrastructureOptions } from './infra/index.js';
import { startStackModels, type StackModels } from './modelProvider.js';
import { reservePort, type PortReservation } from './ports.js';
import type { RestartPolicy } from './restartPolicy.js';
import { SERVICE_NAMES, serviceProcess, serviceUrlVariable, type ServiceName, type ServiceProcess } from './services.js';

export interface StackOptions extends InfrastructureOptions {
  /** The gateway's port; 0 reserves one like the other services' (see ports.ts). */
  gatewayPort: number;
  logLevel?: string;
  /** Where the local source host keeps its git repositories; a temporary folder (removed on stop) when absent. */
  sourceHostDir?: string;
  /** Where the sandboxes service makes its sandboxes' working directories; a temporary folder (removed on stop) when absent. */
  sandboxRoot?: string;
  /** Extra environment for every service. */
  env?: NodeJS.ProcessEnv;
  /** Every output line of the processes started; default this process's stderr. */
  output?: (line: string) => void;
  /** The stack's own messages (a service restarted after a crash); default this process's stderr. */
  log?: (line: string) => void;
  /** How a service that exits unasked is restarted; `false`: it stays down. */
  restart?: Partial<RestartPolicy> | false;
  /**
   * Telemetry on: every service gets `OTEL_EXPORTER_OTLP_ENDPOINT` and is started with the preload
   * (`node --import @ars/telemetry/register`, see shared/telemetry). Absent: off, unless this
   * process's environment already names an endpoint.
   */
  telemetry?: StackTelemetry;
}

export interface StackTelemetry {
  /** OTLP/HTTP base URL of the collector; traces go to `<endpoint>/v1/traces`. */
  otlpEndpoint: string;
  /** How long spans wait in a service before they are sent (`OTEL_BSP_SCHEDULE_DELAY`; the SDK's default 5000 ms). */
  exportDelayMs?: number;
}

/** The environment turning telemetry on in every service (see StackOptions.telemetry). */
export function telemetryEnvironment(telemetry: StackTelemetry | undefined): NodeJS.ProcessEnv {
  if (!telemetry) return {};
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: telemetry.otlpEndpoint,
    ...(telemetry.exportDelayMs !== undefined ? { OTEL_BSP_SCHEDULE_DELAY: String(telemetry.exportDelayMs) } : {}),
  };
}

export interface Stack {
  baseUrl: string;
  infrastructure: Infrastructure;
  /** The model stand-in, when a real CLI of the stack calls it (see modelProvider.ts). */
  modelStandIn: StackModels['standIn'];
  services: Record<ServiceName, ServiceProcess>;
  /** The services' internal token (INTERNAL_TOKEN): given, or made for this stack. */
  internalToken: string;
  /** The gateway, then the other services, then infrastructure. */
  stop(): Promise<void>;
}

/** Infrastructure, then every service as its own process, each waited on until ready. */
export async function startStack(options: StackOptions): Promise<Stack> {
  const infrastructure = await startInfrastructure(options);
  // Each service's port is reserved for the stack's whole life (see ports.ts): a restarted service
  // comes back on the same port, and no other stack on this machine is handed it meanwhile.
  const reservations: PortReservation[] = [];
  const releasePorts = async (): Promise<void> => {
    await Promise.all(reservations.map((reservation) => reservation.release()));
  };
  const ports = new Map<ServiceName, number>();
  // Each service's metrics listener (METRICS_PORT) on loopback, reserved the same way: a restart keeps it.
  const metricsPorts = new Map<ServiceName, number>();
  try {
    for (const name of SERVICE_NAMES) {
      const metricsReservation = await reservePort();
      reservations.push(metricsReservation);
      metricsPorts.set(name, metricsReservation.port);
      if (name === 'gateway' && options.gatewayPort !== 0) {
        ports.set(name, options.gatewayPort);
        continue;
      }
      const reservation = await reservePort();
      reservations.push(reservation);
      ports.set(name, reservation.port);
    }
  } catch (error) {
    await releasePorts();
    await infrastructure.stop();
    throw error;
  }
  let models: StackModels;
  try {
    models = await startStackModels({ ...process.env, ...options.env }, options.log ?? ((line) => process.stderr.write(`${line}\n`)));
  } catch (error) {
    await releasePorts();
    await infrastructure.stop();
    throw error;
  }
  const temporarySourceHost = options.sourceHostDir ? undefined : mkdtempSync(join(tmpdir(), 'ars-source-host-'));
  const temporarySandboxRoot = options.sandboxRoot ? undefined : mkdtempSync(join(tmpdir(), 'ars-sandboxes-'));
  const internalToken = options.env?.INTERNAL_TOKEN ?? process.env.INTERNAL_TOKEN ?? randomBytes(24).toString('base64url');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...options.env,
    ...models.env,
    ...telemetryEnvironment(options.telemetry),
    HOST: '127.0.0.1',
    MONGO_URL: infrastructure.mongoUrl,
    KAFKA_BROKERS: infrastructure.kafkaBrokers.join(','),
    REDIS_URL: infrastructure.redisUrl,
    INTERNAL_TOKEN: internalToken,
    LOG_LEVEL: options.logLevel ?? process.env.LOG_LEVEL ?? 'info',
    ARS_ENV: process.env.ARS_ENV ?? 'development',
    SOURCE_HOST_DIR: options.sourceHostDir ?? temporarySourceHost,
    SANDBOX_ROOT: options.sandboxRoot ?? temporarySandboxRoot,
  };
  for (const [name, port] of ports) env[serviceUrlVariable(name)] = `http://127.0.0.1:${port}`;

  const services = {} as Record<ServiceName, ServiceProcess>;
  for (const name of SERVICE_NAMES) {
    services[name] = serviceProcess({
      name,
      port: ports.get(name) ?? 0,
      metricsPort: metricsPorts.get(name),
      env,
      output: options.output,
      log: options.log,
      restart: options.restart,
    });
  }
  const started: ServiceProcess[] = [];
  const stop = async (): Promise<void> => {
    // The gateway (public ingress) first, then the others side by side, then what they all need.
    const gatewayStarted = started.includes(services.gateway);
    if (gatewayStarted) await services.gateway.stop();
    await Promise.all(started.filter((service) => service !== services.gateway).map((service) => service.stop()));
    await releasePorts();
    await models.stop();
    await infrastructure.stop();
    if (temporarySourceHost) rmSync(temporarySourceHost, { recursive: true, force: true });
    if (temporarySandboxRoot) rmSync(temporarySandboxRoot, { recursive: true, force: true });
  };
  try {
    // Every service but the gateway starts side by side; the gateway's readiness asks all of them.
    const others = SERVICE_NAMES.filter((name) => name !== 'gateway').map((name) => services[name]);
    started.push(...others);
    await Promise.all(others.map((service) => service.start()));
    started.push(services.gateway);
    await services.gateway.start();
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl: services.gateway.url, infrastructure, modelStandIn: models.standIn, services, internalToken, stop };
}
