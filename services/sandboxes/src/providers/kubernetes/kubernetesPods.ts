// A thin client over @kubernetes/client-node for sandbox Pods: create the Secret and the Pod, wait
// until the init container prepared the repository and the Pod runs, exec commands in it (the exec
// WebSocket, exit code from the status channel), read container logs, delete Pod and Secret.
// Every failure is a KubernetesError with a stable `reason` and a message fit for a run's `error`.
import { randomUUID } from 'node:crypto';
import { PassThrough, Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { ApiException, CoreV1Api, Exec, KubeConfig, type V1Pod, type V1PodStatus, type V1Secret, type V1Status } from '@kubernetes/client-node';
import { HOME_DIR, INIT_CONTAINER, MAIN_CONTAINER, WORKSPACE, type SandboxManifests } from './podManifest.js';

export type KubeConfigSource =
  | { kind: 'in-cluster' }
  | { kind: 'file'; path: string; context?: string }
  | { kind: 'server'; server: string; token: string; caData?: string; skipTLSVerify?: boolean };

export type KubernetesErrorReason =
  | 'unauthorized'
  | 'forbidden'
  | 'namespace_not_found'
  | 'not_found'
  | 'conflict'
  | 'invalid'
  | 'unavailable'
  | 'timeout'
  | 'init_failed'
  | 'pod_failed'
  | 'exec_failed'
  | 'aborted';

export class KubernetesError extends Error {
  constructor(
    readonly reason: KubernetesErrorReason,
    message: string,
    readonly httpStatus: number | null = null,
  ) {
    super(message);
    this.name = 'KubernetesError';
  }
}

export function loadKubeConfig(source: KubeConfigSource): KubeConfig {
  const config = new KubeConfig();
  if (source.kind === 'in-cluster') config.loadFromCluster();
  else if (source.kind === 'file') {
    config.loadFromFile(source.path);
    if (source.context) config.setCurrentContext(source.context);
  } else {
    // client-node refuses a plain-http server (the stand-in, `kubectl proxy`) unless TLS checks are
    // off; for http they mean nothing, so they are off there by default.
    const plain = source.server.startsWith('http://');
    config.loadFromOptions({
      clusters: [{ name: 'ars', server: source.server, skipTLSVerify: source.skipTLSVerify ?? plain, ...(source.caData ? { caData: source.caData } : {}) }],
      users: [{ name: 'ars', token: source.token }],
      contexts: [{ name: 'ars', cluster: 'ars', user: 'ars' }],
      currentContext: 'ars',
    });
  }
  return config;
}

interface Action {
  verb: string;
  resource: string;
  namespace: string;
  name?: string;
}

function statusBody(body: unknown): V1Status | null {
  if (typeof body === 'string') {
    try {
      const parsed: unknown = JSON.parse(body);
      return typeof parsed === 'object' && parsed !== null ? (parsed as V1Status) : null;
    } catch {
      return null;
    }
  }
  return typeof body === 'object' && body !== null ? (body as V1Status) : null;
}

/** A client-node failure (an ApiException, a network error) → a KubernetesError in words. */
export function mapKubernetesError(error: unknown, action: Action, server: string): KubernetesError {
  if (error instanceof KubernetesError) return error;
  if (error instanceof ApiException) {
    const code = error.code;
    const status = statusBody(error.body);
    const detail = status?.message ? `: ${status.message}` : '';
    const what = action.name ? `${action.resource} "${action.name}"` : action.resource;
    if (code === 401)
      return new KubernetesError('unauthorized', `the Kubernetes API server refused the credentials (401); check the token or kubeconfig`, code);
    if (code === 403)
      return new KubernetesError('forbidden', `the service account may not ${action.verb} ${action.resource} in ${action.namespace} (403)${detail}`, code);
    if (code === 404 && status?.details?.kind === 'namespaces') {
      return new KubernetesError('namespace_not_found', `the namespace "${action.namespace}" does not exist (404)`, code);
    }
    if (code === 404) return new KubernetesError('not_found', `${what} was not found in ${action.namespace} (404)`, code);
    if (code === 409) return new KubernetesError('conflict', `${what} already exists in ${action.namespace} (409)`, code);
    if (code === 422 || code === 400)
      return new KubernetesError('invalid', `the Kubernetes API server rejected the ${action.resource} (${code})${detail}`, code);
    return new KubernetesError('unavailable', `the Kubernetes API server answered ${code} to ${action.verb} ${what}${detail}`, code);
  }
  const cause = (error as { code?: string; cause?: { code?: string } } | null) ?? null;
  const code = cause?.code ?? cause?.cause?.code;
  const text = error instanceof Error ? error.message : String(error);
  return new KubernetesError('unavailable', `the Kubernetes API server at ${server} could not be reached${code ? ` (${code})` : ''}: ${text}`);
}

export interface KubernetesPodsOptions {
  config: KubeConfigSource | KubeConfig;
  namespace: string;
  /** How often the Pod's status is read while waiting (default 1000 ms). */
  pollIntervalMs?: number;
  /** How long the Pod may take to run (image pull, clone) before it counts as failed (default 300000 ms). */
  readyTimeoutMs?: number;
}

export interface ExecOptions {
  /** The working directory in the container (absolute; e.g. the manifests' `workingDir`). */
  cwd: string;
  /** The complete environment of the command (nothing of the container's is inherited); HOME and PATH get defaults. */
  env?: Record<string, string>;
  stdin?: string | Buffer | Readable;
  onStdout?: (chunk: Buffer) => void;
  onStderr?: (chunk: Buffer) => void;
  /** Aborting sends SIGTERM to the command, then SIGKILL after `killGraceMs` (default 5000). */
  signal?: AbortSignal;
  killGraceMs?: number;
  container?: string;
}

export interface ExecResult {
  /** The command's exit code (128 + n when it ended by signal n). */
  exitCode: number;
  /** True when the command was signalled because `signal` aborted. */
  aborted: boolean;
}

export interface LogOptions {
  tailLines?: number;
  limitBytes?: number;
}

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Waiting reasons after which a container will not start without a change to the Pod or the cluster. */
const FATAL_WAITING = new Set([
  'CreateContainerConfigError',
  'CreateContainerError',
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'ErrImageNeverPull',
]);

/**
 * The wrapper every exec runs in: Kubernetes exec has no working directory or environment, and
 * values on the command line would reach the API server's audit log. So the command line carries
 * only the pid file, the directory and the command; the environment comes first on stdin
 * (a count, then one base64 `NAME=value` per line; `read` takes no byte more than a line), then the
 * caller's stdin follows. The pid file lets an abort signal the command from a second exec.
 */
export const EXEC_SCRIPT = `IFS= read -r n || exit 125
i=0
while [ "$i" -lt "$n" ]; do
  IFS= read -r line || exit 125
  export "$(printf '%s' "$line" | base64 -d)" || exit 125
  i=$((i+1))
done
mkdir -p "\${1%/*}" 2>/dev/null
printf '%s' "$$" > "$1" 2>/dev/null
cd -- "$2" 2>/dev/null || { printf 'ars-exec: the working directory %s does not exist\\n' "$2" >&2; exit 126; }
shift 2
exec "$@"
`;

/**
 * Signals the command's process group when it leads one (so `sh -c 'npm run dev'` takes npm and node
 * along), else the process alone: whether an exec'ed process leads a group depends on the runtime.
 */
const KILL_SCRIPT = 'p=$(cat "$1" 2>/dev/null) && [ -n "$p" ] && { kill -s "$2" -- "-$p" 2>/dev/null || kill -s "$2" "$p" 2>/dev/null; }; exit 0';

function envBlock(env: Record<string, string>): Buffer {
  const lines = Object.entries(env).map(([name, value]) => {
    if (!ENV_NAME.test(name)) throw new KubernetesError('exec_failed', `the environment variable name "${name}" is not valid`);
    return Buffer.from(`${name}=${value}`, 'utf8').toString('base64');
  });
  return Buffer.from(`${lines.length}\n${lines.map((l) => `${l}\n`).join('')}`, 'utf8');
}

function sink(onChunk: ((chunk: Buffer) => void) | undefined): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      try {
        onChunk?.(chunk);
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
  });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new KubernetesError('aborted', 'the wait for the pod was aborted'));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new KubernetesError('aborted', 'the wait for the pod was aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Creates sandbox Pods in one namespace. */
export class KubernetesPods {
  readonly namespace: string;
  readonly server: string;
  private readonly api: CoreV1Api;
  private readonly execer: Exec;
  readonly pollIntervalMs: number;
  readonly readyTimeoutMs: number;

  constructor(options: KubernetesPodsOptions) {
    const config = options.config instanceof KubeConfig ? options.config : loadKubeConfig(options.config);
    this.namespace = options.namespace;
    this.server = config.getCurrentCluster()?.server ?? '(no cluster)';
    this.api = config.makeApiClient(CoreV1Api);
    this.execer = new Exec(config);
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.readyTimeoutMs = options.readyTimeoutMs ?? 300_000;
  }

  /** Creates the Secret, then the Pod (the Secret is removed again when the Pod is refused). Does not wait. */
  async create(manifests: SandboxManifests): Promise<SandboxPod> {
    const namespace = this.namespace;
    const secretName = manifests.secret.metadata?.name ?? '';
    const podName = manifests.pod.metadata?.name ?? '';
    await this.call({ verb: 'create', resource: 'secrets', namespace, name: secretName }, () =>
      this.api.createNamespacedSecret({ namespace, body: manifests.secret }),
    );
    try {
      await this.call({ verb: 'create', resource: 'pods', namespace, name: podName }, () => this.api.createNamespacedPod({ namespace, body: manifests.pod }));
    } catch (error) {
      await this.deleteSecret(secretName).catch(() => undefined);
      throw error;
    }
    return new SandboxPod(this, podName, secretName, manifests.workingDir);
  }

  /** A handle on a Pod made earlier (after a restart of the service), by the names the sandbox record kept. */
  attach(podName: string, secretName: string, workingDir: string): SandboxPod {
    return new SandboxPod(this, podName, secretName, workingDir);
  }

  /** @internal */
  async call<T>(action: Action, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw mapKubernetesError(error, action, this.server);
    }
  }

  /** @internal */
  readPod(name: string): Promise<V1Pod> {
    const namespace = this.namespace;
    return this.call({ verb: 'get', resource: 'pods', namespace, name }, () => this.api.readNamespacedPod({ name, namespace }));
  }

  /** @internal */
  async readLog(name: string, container: string, options: LogOptions): Promise<string> {
    const namespace = this.namespace;
    return this.call({ verb: 'get', resource: 'pods/log', namespace, name }, () =>
      this.api.readNamespacedPodLog({
        name,
        namespace,
        container,
        ...(options.tailLines !== undefined ? { tailLines: options.tailLines } : {}),
        ...(options.limitBytes !== undefined ? { limitBytes: options.limitBytes } : {}),
      }),
    );
  }

  /** @internal Deletes, and says whether there was something to delete (404 is fine). */
  async deletePod(name: string): Promise<boolean> {
    const namespace = this.namespace;
    try {
      await this.call({ verb: 'delete', resource: 'pods', namespace, name }, () => this.api.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 5 }));
      return true;
    } catch (error) {
      if (error instanceof KubernetesError && error.reason === 'not_found') return false;
      throw error;
    }
  }

  /** @internal */
  async deleteSecret(name: string): Promise<boolean> {
    const namespace = this.namespace;
    try {
      await this.call({ verb: 'delete', resource: 'secrets', namespace, name }, () => this.api.deleteNamespacedSecret({ name, namespace }));
      return true;
    } catch (error) {
      if (error instanceof KubernetesError && error.reason === 'not_found') return false;
      throw error;
    }
  }

  /** @internal Opens one exec WebSocket; `done` resolves with the status channel's answer (null when the stream ended without one). */
  async openExec(
    podName: string,
    container: string,
    command: string[],
    stdin: Readable | null,
    onStdout: ((chunk: Buffer) => void) | undefined,
    onStderr: ((chunk: Buffer) => void) | undefined,
  ): Promise<{ protocol: string; done: Promise<V1Status | null>; close: () => void }> {
    const stdout = sink(onStdout);
    const stderr = sink(onStderr);
    let status: V1Status | null = null;
    let ws: Awaited<ReturnType<Exec['exec']>>;
    try {
      ws = await this.execer.exec(this.namespace, podName, container, command, stdout, stderr, stdin, false, (s) => {
        status = s;
      });
    } catch (error) {
      throw this.execError(error, podName);
    }
    const done = new Promise<void>((resolve) => {
      if (ws.readyState === ws.CLOSED) resolve();
      else ws.addEventListener('close', () => resolve(), { once: true });
    }).then(async () => {
      if (!stdout.writableEnded) stdout.end();
      if (!stderr.writableEnded) stderr.end();
      await Promise.all([finished(stdout), finished(stderr)]).catch(() => undefined);
      return status;
    });
    return { protocol: ws.protocol, done, close: () => ws.close() };
  }

  private execError(error: unknown, podName: string): KubernetesError {
    const message = (error as { message?: unknown } | null)?.message;
    const text = typeof message === 'string' ? message : String(error);
    const code = /Unexpected server response: (\d+)/.exec(text)?.[1];
    const namespace = this.namespace;
    if (code === '401')
      return new KubernetesError('unauthorized', 'the Kubernetes API server refused the credentials (401); check the token or kubeconfig', 401);
    if (code === '403') return new KubernetesError('forbidden', `the service account may not create pods/exec in ${namespace} (403)`, 403);
    if (code === '404') return new KubernetesError('not_found', `pods "${podName}" was not found in ${namespace} (404)`, 404);
    if (code === '400') return new KubernetesError('exec_failed', `the pod "${podName}" does not accept commands (400): it is not running`, 400);
    if (code) return new KubernetesError('exec_failed', `the exec into pod "${podName}" was refused (${code})`, Number(code));
    return new KubernetesError('unavailable', `the Kubernetes API server at ${this.server} could not be reached for an exec: ${text}`);
  }
}

/** One sandbox Pod (and its Secret). */
export class SandboxPod {
  constructor(
    private readonly pods: KubernetesPods,
    readonly name: string,
    readonly secretName: string,
    /** The main container's working directory (the repository, or its root directory). */
    readonly workingDir: string,
  ) {}

  get namespace(): string {
    return this.pods.namespace;
  }

  /** The Pod as the API server has it. */
  read(): Promise<V1Pod> {
    return this.pods.readPod(this.name);
  }

  /**
   * The Pod's status as the kubelet last reported it (one GET of the Pod); null when the Pod is gone
   * (404). Any other failure is a KubernetesError, mapped as every call's.
   */
  async readStatus(): Promise<V1PodStatus | null> {
    try {
      return (await this.read()).status ?? {};
    } catch (error) {
      if (error instanceof KubernetesError && error.reason === 'not_found') return null;
      throw error;
    }
  }

  /**
   * Resolves when every init container completed and the Pod is Running. Rejects with `init_failed`
   * (with the init container's message or log tail) when the clone failed, `pod_failed` when the Pod
   * failed or a container cannot start, `timeout` after `timeoutMs`, `aborted` on the signal.
   */
  async waitUntilRunning(options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<V1Pod> {
    const timeoutMs = options.timeoutMs ?? this.pods.readyTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    let last = 'not yet read';
    for (;;) {
      if (options.signal?.aborted) throw new KubernetesError('aborted', 'the wait for the pod was aborted');
      const pod = await this.read();
      const status = pod.status ?? {};
      for (const init of status.initContainerStatuses ?? []) {
        const terminated = init.state?.terminated;
        if (terminated && terminated.exitCode !== 0) throw await this.initFailure(init.name, terminated.message ?? '', terminated.exitCode);
        const waiting = init.state?.waiting;
        if (waiting?.reason && FATAL_WAITING.has(waiting.reason)) {
          throw new KubernetesError(
            'pod_failed',
            `the init container "${init.name}" cannot start: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`,
          );
        }
      }
      for (const container of status.containerStatuses ?? []) {
        const waiting = container.state?.waiting;
        if (waiting?.reason && FATAL_WAITING.has(waiting.reason)) {
          throw new KubernetesError(
            'pod_failed',
            `the container "${container.name}" cannot start: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`,
          );
        }
      }
      if (status.phase === 'Failed' || status.phase === 'Succeeded') {
        throw new KubernetesError(
          'pod_failed',
          `the pod "${this.name}" ended (${status.phase}${status.reason ? `: ${status.reason}` : ''}${status.message ? `: ${status.message}` : ''})`,
        );
      }
      const initsDone = (status.initContainerStatuses ?? []).every((c) => c.state?.terminated?.exitCode === 0);
      const mainRunning = (status.containerStatuses ?? []).some((c) => c.name === MAIN_CONTAINER && c.state?.running);
      if (status.phase === 'Running' && initsDone && mainRunning) return pod;
      last = describe(pod);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new KubernetesError('timeout', `the pod "${this.name}" was not running within ${Math.round(timeoutMs / 1000)} s (last state: ${last})`);
      await sleep(Math.min(this.pods.pollIntervalMs, left), options.signal);
    }
  }

  private async initFailure(container: string, message: string, exitCode: number): Promise<KubernetesError> {
    let text = message.trim();
    if (!text) text = (await this.logs(container, { tailLines: 20, limitBytes: 4096 }).catch(() => '')).trim();
    const reason = text
      .split('\n')
      .filter(Boolean)
      .slice(-3)
      .join(' ')
      .replace(/^ars-init: /, '');
    return new KubernetesError(
      'init_failed',
      `the repository could not be prepared in the pod (init container "${container}" exited ${exitCode}): ${reason || 'no output'}`,
    );
  }

  /**
   * Runs `command` in the container through the exec WebSocket, with `cwd` and `env` applied by a
   * small sh wrapper (see EXEC_SCRIPT). Resolves with the exit code; a command that cannot run at
   * all (or a lost stream) rejects with `exec_failed`.
   */
  async exec(command: string[], options: ExecOptions): Promise<ExecResult> {
    if (command.length === 0) throw new KubernetesError('exec_failed', 'no command to run');
    const container = options.container ?? MAIN_CONTAINER;
    const env = { HOME: HOME_DIR, PATH: DEFAULT_PATH, ...options.env };
    const pidFile = `${WORKSPACE}/.ars/exec-${randomUUID()}.pid`;
    const stdin = new PassThrough();
    stdin.write(envBlock(env));
    const full = ['env', '-i', '/bin/sh', '-c', EXEC_SCRIPT, 'ars-exec', pidFile, options.cwd, ...command];

    let aborted = false;
    let closeStream: (() => void) | null = null;
    const timers: NodeJS.Timeout[] = [];
    const grace = options.killGraceMs ?? 5000;
    const onAbort = (): void => {
      if (aborted) return;
      aborted = true;
      void this.kill(container, pidFile, 'TERM');
      timers.push(setTimeout(() => void this.kill(container, pidFile, 'KILL'), grace));
      // Last resort (the pid file was not written yet, the kill exec failed): drop the stream.
      timers.push(setTimeout(() => closeStream?.(), grace + 2000));
    };
    if (options.signal?.aborted) throw new KubernetesError('aborted', 'the command was aborted before it started');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const { protocol, done, close } = await this.pods.openExec(this.name, container, full, stdin, options.onStdout, options.onStderr);
      closeStream = close;
      // The caller's stdin follows the environment block. Ending stdin needs the v5 protocol (with
      // older ones client-node closes the whole stream instead), so with v4 the command's stdin stays open.
      const canClose = protocol === 'v5.channel.k8s.io';
      const input = options.stdin;
      if (input === undefined) {
        if (canClose) stdin.end();
      } else if (typeof input === 'string' || Buffer.isBuffer(input)) {
        if (canClose) stdin.end(input);
        else stdin.write(input);
      } else input.pipe(stdin, { end: canClose });
      const status = await done;
      if (status === null) {
        if (aborted) return { exitCode: 143, aborted };
        throw new KubernetesError('exec_failed', `the exec stream of pod "${this.name}" ended without an exit status (the connection was lost)`);
      }
      if (status.status === 'Success') return { exitCode: 0, aborted };
      const exitCause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
      const exitCode = exitCause?.message !== undefined ? Number(exitCause.message) : NaN;
      if (Number.isInteger(exitCode)) return { exitCode, aborted };
      throw new KubernetesError('exec_failed', `the command could not run in pod "${this.name}": ${status.message ?? status.reason ?? 'unknown failure'}`);
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      for (const timer of timers) clearTimeout(timer);
    }
  }

  private async kill(container: string, pidFile: string, signal: 'TERM' | 'KILL'): Promise<void> {
    try {
      const { done } = await this.pods.openExec(this.name, container, ['/bin/sh', '-c', KILL_SCRIPT, 'ars-kill', pidFile, signal], null, undefined, undefined);
      await done;
    } catch {
      // the command may be gone already; the pod's deletion ends it in any case
    }
  }

  /** A container's log (`clone` for the init container, `sandbox` for the main one). */
  logs(container: string = INIT_CONTAINER, options: LogOptions = {}): Promise<string> {
    return this.pods.readLog(this.name, container, options);
  }

  /** Deletes the Pod and the Secret; safe to call again (404 counts as deleted). Says whether the Pod was still there. */
  async delete(): Promise<{ pod: boolean; secret: boolean }> {
    const pod = await this.pods.deletePod(this.name);
    const secret = await this.pods.deleteSecret(this.secretName);
    return { pod, secret };
  }
}

function describe(pod: V1Pod): string {
  const status = pod.status ?? {};
  const parts = [status.phase ?? 'unknown'];
  for (const c of [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])]) {
    const state = c.state?.waiting
      ? `waiting ${c.state.waiting.reason ?? ''}`
      : c.state?.running
        ? 'running'
        : c.state?.terminated
          ? `terminated ${c.state.terminated.exitCode}`
          : 'unknown';
    parts.push(`${c.name} ${state.trim()}`);
  }
  return parts.join(', ');
}

export type { V1Pod, V1PodStatus, V1Secret };
