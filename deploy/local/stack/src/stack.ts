import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startInfrastructure, type Infrastructure, type InfrastructureOptions } from './infra/index.js';
import { freePort } from './ports.js';
import { SERVICE_NAMES, serviceProcess, serviceUrlVariable, type ServiceName, type ServiceProcess } from './services.js';

export interface StackOptions extends InfrastructureOptions {
  /** The gateway's port; 0 picks a free one. */
  gatewayPort: number;
  logLevel?: string;
  /** Where the local source host keeps its git repositories; a temporary folder (removed on stop) when absent. */
  sourceHostDir?: string;
  /** Where the sandboxes service makes its sandboxes' working directories; a temporary folder (removed on stop) when absent. */
  sandboxRoot?: string;
  /** Extra environment for every service. */
  env?: NodeJS.ProcessEnv;
  output?: (line: string) => void;
}

export interface Stack {
  baseUrl: string;
  infrastructure: Infrastructure;
  services: Record<ServiceName, ServiceProcess>;
  /** The gateway, then the other services, then infrastructure. */
  stop(): Promise<void>;
}

/** Infrastructure, then every service as its own process, each waited on until ready. */
export async function startStack(options: StackOptions): Promise<Stack> {
  const infrastructure = await startInfrastructure(options);
  const temporarySourceHost = options.sourceHostDir ? undefined : mkdtempSync(join(tmpdir(), 'ars-source-host-'));
  const temporarySandboxRoot = options.sandboxRoot ? undefined : mkdtempSync(join(tmpdir(), 'ars-sandboxes-'));
  const ports = new Map<ServiceName, number>();
  for (const name of SERVICE_NAMES) {
    ports.set(name, name === 'gateway' && options.gatewayPort !== 0 ? options.gatewayPort : await freePort());
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...options.env,
    HOST: '127.0.0.1',
    MONGO_URL: infrastructure.mongoUrl,
    KAFKA_BROKERS: infrastructure.kafkaBrokers.join(','),
    REDIS_URL: infrastructure.redisUrl,
    INTERNAL_TOKEN: options.env?.INTERNAL_TOKEN ?? process.env.INTERNAL_TOKEN ?? randomBytes(24).toString('base64url'),
    LOG_LEVEL: options.logLevel ?? process.env.LOG_LEVEL ?? 'info',
    ARS_ENV: process.env.ARS_ENV ?? 'development',
    SOURCE_HOST_DIR: options.sourceHostDir ?? temporarySourceHost,
    SANDBOX_ROOT: options.sandboxRoot ?? temporarySandboxRoot,
  };
  for (const [name, port] of ports) env[serviceUrlVariable(name)] = `http://127.0.0.1:${port}`;

  const services = {} as Record<ServiceName, ServiceProcess>;
  for (const name of SERVICE_NAMES) {
    services[name] = serviceProcess({ name, port: ports.get(name) ?? 0, env, output: options.output });
  }
  const started: ServiceProcess[] = [];
  const stop = async (): Promise<void> => {
    // The gateway (public ingress) first, then the others side by side, then what they all need.
    const gatewayStarted = started.includes(services.gateway);
    if (gatewayStarted) await services.gateway.stop();
    await Promise.all(started.filter((service) => service !== services.gateway).map((service) => service.stop()));
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
  return { baseUrl: services.gateway.url, infrastructure, services, stop };
}
