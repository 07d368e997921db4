import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { startChild, type ManagedChild } from './childProcess.js';
import { fromRoot } from './paths.js';
import { DEFAULT_RESTART_POLICY, nextRestart, type RestartPolicy } from './restartPolicy.js';

/** Every service of the system, in start order (the gateway last: its readiness needs the others). */
export const SERVICE_NAMES = ['catalog', 'runs', 'sandboxes', 'automations-engine', 'pr-review', 'mcp-registry', 'gateway'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** The header in which a service answers `/healthz` and `/readyz` with its `ARS_INSTANCE_ID`. */
export const INSTANCE_HEADER = 'x-ars-instance';

/** `automations-engine` → `AUTOMATIONS_ENGINE_URL`: how every service finds every other one. */
export function serviceUrlVariable(name: ServiceName): string {
  return `${name.toUpperCase().replace(/-/g, '_')}_URL`;
}

export interface ServiceProcess {
  readonly name: ServiceName;
  readonly port: number;
  readonly url: string;
  /** The service's metrics listener (METRICS_PORT, on loopback) when the stack gave it one. */
  readonly metricsPort: number | undefined;
  /** `http://127.0.0.1:<metricsPort>/metrics`, what Prometheus (or curl) scrapes; the API's port does not serve it. */
  readonly metricsUrl: string | undefined;
  child(): ManagedChild | undefined;
  /** The id the current process was started with (`ARS_INSTANCE_ID`); a new one at every start. */
  instanceId(): string | undefined;
  /** Automatic restarts so far (after crashes). */
  restarts(): number;
  /** Starts the service (resuming automatic restarts) and resolves once it is ready. */
  start(): Promise<void>;
  /** SIGTERM; no automatic restart until the next `start()`. */
  stop(): Promise<void>;
  /**
   * SIGKILL of the service's process group, as a crash would end it (tests of recovery). Asked for,
   * so no automatic restart follows: the test restarts it with `start()` when it chooses.
   */
  kill(): Promise<void>;
  restart(): Promise<void>;
}

export interface ServiceProcessOptions {
  name: ServiceName;
  port: number;
  /** The metrics listener's port (METRICS_PORT); absent: a free one the service picks (not known here). */
  metricsPort?: number;
  env: NodeJS.ProcessEnv;
  readyTimeoutMs?: number;
  /** Each output line of the service (prefixed with its name); default this process's stderr. */
  output?: (line: string) => void;
  /** The stack's own messages about the service (restarts); default this process's stderr. */
  log?: (line: string) => void;
  /** A service that exits without being asked is started again after a backoff; `false` turns that off. */
  restart?: Partial<RestartPolicy> | false;
}

/**
 * One service as its own process: `node services/<name>/dist/main.js` on a port the stack reserved.
 * Ready when `/readyz` is 200 AND answered by this very process (its instance id in `X-Ars-Instance`):
 * a foreign process on the port is never taken for the service. Exiting unasked (a crash, `kill -9`
 * from outside) is followed by a restart on the same port after a backoff, said on `log`.
 */
export function serviceProcess(options: ServiceProcessOptions): ServiceProcess {
  const url = `http://127.0.0.1:${options.port}`;
  const metricsUrl = options.metricsPort === undefined ? undefined : `http://127.0.0.1:${options.metricsPort}/metrics`;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const stopGraceMs = stopGraceFor(options.env);
  const policy = options.restart === false ? undefined : { ...DEFAULT_RESTART_POLICY, ...options.restart };
  const nodeArgs: string[] = [];
  const preload = fromRoot('shared/telemetry/dist/register.js');
  if (options.env.OTEL_EXPORTER_OTLP_ENDPOINT && existsSync(preload)) nodeArgs.push('--import', preload);

  let child: ManagedChild | undefined;
  let instance: string | undefined;
  /** Whether the service should be running: only an explicit stop/kill sets it down. */
  let wanted = false;
  let pendingRestart: NodeJS.Timeout | undefined;
  let attempt = 0;
  let readySince: number | undefined;
  let restarts = 0;

  /**
   * Starts one process and waits until it is ready. An automatic restart is supervised from the
   * start (an exit before ready schedules the next attempt); an explicit start only once ready (a
   * failure is the caller's to report).
   */
  const launch = async (automatic: boolean): Promise<void> => {
    const id = randomBytes(12).toString('base64url');
    instance = id;
    const current = startChild({
      name: options.name,
      command: process.execPath,
      args: [...nodeArgs, fromRoot(`services/${options.name}/dist/main.js`)],
      // ARS_EXIT_WITH_PARENT: the service stops when this process dies and its stdin pipe closes.
      // METRICS_PORT is the service's own, never one inherited from this process's environment (0: a free one).
      env: {
        ...options.env,
        PORT: String(options.port),
        METRICS_HOST: '127.0.0.1',
        METRICS_PORT: String(options.metricsPort ?? 0),
        ARS_INSTANCE_ID: id,
        ARS_EXIT_WITH_PARENT: 'stdin',
      },
      output: options.output,
    });
    child = current;
    let supervised = automatic;
    void current.exited.then((code) => {
      if (supervised) onExit(current, code);
    });
    try {
      await waitUntilReady(url, current, id, options.readyTimeoutMs ?? 60_000);
    } catch (error) {
      await current.kill();
      throw error;
    }
    readySince = Date.now();
    if (!supervised) {
      supervised = true;
      // It may have exited between answering ready and now.
      if (!current.isRunning()) onExit(current, await current.exited);
    }
  };

  const onExit = (exited: ManagedChild, code: number | string): void => {
    if (exited !== child || !wanted || !policy || pendingRestart) return;
    const next = nextRestart(policy, attempt, readySince === undefined ? 0 : Date.now() - readySince);
    attempt = next.attempt;
    readySince = undefined;
    log(`[stack] ${options.name} exited (${describeExit(code)}); restarting in ${next.delayMs / 1000} s (attempt ${attempt})`);
    pendingRestart = setTimeout(() => {
      pendingRestart = undefined;
      if (!wanted) return;
      launch(true).then(
        () => {
          restarts += 1;
          log(`[stack] ${options.name} restarted (attempt ${attempt}): pid ${child?.pid ?? '?'}, ready at ${url}`);
        },
        (error: unknown) => {
          // Its exit (or the kill after a failed readiness wait) has scheduled the next attempt.
          if (wanted) log(`[stack] ${options.name} did not come back: ${error instanceof Error ? error.message : String(error)}`);
        },
      );
    }, next.delayMs);
  };

  const cancelRestart = (): void => {
    clearTimeout(pendingRestart);
    pendingRestart = undefined;
  };

  const service: ServiceProcess = {
    name: options.name,
    port: options.port,
    url,
    metricsPort: options.metricsPort,
    metricsUrl,
    child: () => child,
    instanceId: () => instance,
    restarts: () => restarts,
    async start() {
      wanted = false;
      cancelRestart();
      if (child?.isRunning()) await child.stop(stopGraceMs);
      wanted = true;
      attempt = 0;
      try {
        await launch(false);
      } catch (error) {
        wanted = false;
        throw error;
      }
    },
    async stop() {
      wanted = false;
      cancelRestart();
      await child?.stop(stopGraceMs);
    },
    async kill() {
      wanted = false;
      cancelRestart();
      await child?.kill();
    },
    async restart() {
      await service.stop();
      await service.start();
    },
  };
  return service;
}

/** The SIGKILL after a SIGTERM comes this long at least (the stack's usual grace). */
const MIN_STOP_GRACE_MS = 15_000;

/**
 * How long a stop waits after SIGTERM before SIGKILL: past the service's own SHUTDOWN_TIMEOUT_MS
 * (by a second), as a Pod's terminationGracePeriodSeconds is, so a service given a longer shutdown
 * is never killed inside it.
 */
function stopGraceFor(env: NodeJS.ProcessEnv): number {
  const shutdownTimeoutMs = Number(env.SHUTDOWN_TIMEOUT_MS);
  return Number.isFinite(shutdownTimeoutMs) ? Math.max(MIN_STOP_GRACE_MS, shutdownTimeoutMs + 1_000) : MIN_STOP_GRACE_MS;
}

function describeExit(code: number | string): string {
  return typeof code === 'number' ? `code ${code}` : `signal ${code}`;
}

async function waitUntilReady(url: string, child: ManagedChild, instance: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastProblem = 'no answer';
  while (Date.now() < deadline) {
    if (!child.isRunning()) {
      const code = await child.exited;
      const line = await child.lastErrorLine();
      throw new Error(`${child.name} exited (${describeExit(code)}) before it was ready${line ? `: ${line}` : ''}`);
    }
    try {
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) });
      const answeredBy = response.headers.get(INSTANCE_HEADER);
      if (answeredBy !== instance) {
        await response.body?.cancel();
        // Someone else answers on the port we reserved for this service: never take it for ours.
        throw new ForeignListener(
          `${url} is answered by another process, not this ${child.name} (instance ${answeredBy ?? 'none'}, expected ${instance}): its port is taken`,
        );
      }
      if (response.status === 200) {
        await response.body?.cancel();
        return;
      }
      lastProblem = `/readyz answered ${response.status}: ${(await response.text()).slice(0, 300)}`;
    } catch (error) {
      if (error instanceof ForeignListener) throw error;
      lastProblem = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${child.name} was not ready within ${timeoutMs} ms (${lastProblem})`);
}

class ForeignListener extends Error {}
