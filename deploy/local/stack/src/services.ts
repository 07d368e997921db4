import { existsSync } from 'node:fs';
import { startChild, type ManagedChild } from './childProcess.js';
import { fromRoot } from './paths.js';

/** Every service of the system, in start order (the gateway last: its readiness needs the others). */
export const SERVICE_NAMES = [
  'catalog',
  'runs',
  'sandboxes',
  'automations-engine',
  'pr-review',
  'mcp-registry',
  'gateway',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** `automations-engine` → `AUTOMATIONS_ENGINE_URL`: how every service finds every other one. */
export function serviceUrlVariable(name: ServiceName): string {
  return `${name.toUpperCase().replace(/-/g, '_')}_URL`;
}

export interface ServiceProcess {
  readonly name: ServiceName;
  readonly port: number;
  readonly url: string;
  child(): ManagedChild | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** SIGKILL of the service's process group, as a crash would end it (tests of recovery). */
  kill(): Promise<void>;
  restart(): Promise<void>;
}

export interface ServiceProcessOptions {
  name: ServiceName;
  port: number;
  env: NodeJS.ProcessEnv;
  readyTimeoutMs?: number;
  output?: (line: string) => void;
}

/** One service as its own process: `node services/<name>/dist/main.js`, ready when `/readyz` is 200. */
export function serviceProcess(options: ServiceProcessOptions): ServiceProcess {
  const url = `http://127.0.0.1:${options.port}`;
  let child: ManagedChild | undefined;
  const nodeArgs: string[] = [];
  const preload = fromRoot('shared/telemetry/dist/register.js');
  if (options.env.OTEL_EXPORTER_OTLP_ENDPOINT && existsSync(preload)) nodeArgs.push('--import', preload);

  const service: ServiceProcess = {
    name: options.name,
    port: options.port,
    url,
    child: () => child,
    async start() {
      child = startChild({
        name: options.name,
        command: process.execPath,
        args: [...nodeArgs, fromRoot(`services/${options.name}/dist/main.js`)],
        // ARS_EXIT_WITH_PARENT: the service stops when this process dies and its stdin pipe closes.
        env: { ...options.env, PORT: String(options.port), ARS_EXIT_WITH_PARENT: 'stdin' },
        output: options.output,
      });
      await waitUntilReady(url, child, options.readyTimeoutMs ?? 60_000);
    },
    async stop() {
      await child?.stop();
    },
    async kill() {
      await child?.kill();
    },
    async restart() {
      await service.stop();
      await service.start();
    },
  };
  return service;
}

async function waitUntilReady(url: string, child: ManagedChild, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastProblem = 'no answer';
  while (Date.now() < deadline) {
    if (!child.isRunning()) throw new Error(`${child.name} exited (${String(await child.exited)}) before it was ready`);
    try {
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 200) return;
      lastProblem = `/readyz answered ${response.status}: ${(await response.text()).slice(0, 300)}`;
    } catch (error) {
      lastProblem = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${child.name} was not ready within ${timeoutMs} ms (${lastProblem})`);
}
