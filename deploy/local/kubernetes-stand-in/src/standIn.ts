// A stand-in Kubernetes API server for tests (no cluster is available here). It answers the REST
// paths and shapes @kubernetes/client-node calls for Pods, Secrets and NetworkPolicies, the Pod log,
// and the exec WebSocket (channel protocol v5/v4), checks bearer tokens and Role-like rules, rejects
// manifests the way the API server's validation does (422 `Status` with causes), records every
// call, and "runs" a Pod on this machine: its init containers and execs are local processes, each
// in a mount namespace of its own (bubblewrap) where a per-Pod temporary directory is mounted at
// `/workspace`, the Pod's volume. It is not a cluster: see this package's README for what it checks
// and what not. Its validation (src/validation/) is written from the Kubernetes API documentation,
// never from the code it tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { accessSync, constants, statSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { V1Container, V1ContainerStatus, V1NetworkPolicy, V1Pod, V1Secret, V1Status, V1StatusCause } from '@kubernetes/client-node';
import { validateNetworkPolicy, validatePod, validateSecret } from './validation/index.js';

/** A Role rule: resources such as `pods`, `pods/exec`, `pods/log`, `secrets`; verbs such as `create`, `get`, `list`, `delete` (`*` for all). */
export interface StandInRule {
  resources: string[];
  verbs: string[];
}

export interface StandInOptions {
  /** The bearer token with every right (default: a random one, read back from `token`). */
  token?: string;
  /** More tokens, each with its Role rules (to test 403). */
  tokens?: Record<string, StandInRule[]>;
  /** Namespaces that exist (default `default` and `ars-sandboxes`). */
  namespaces?: string[];
  /** The path the sandbox volume is mounted at in the Pods this stand-in runs (default `/workspace`). */
  workspacePath?: string;
  /** The exec subprotocols it accepts, preferred first (default v5, v4; `['v4.channel.k8s.io']` plays an older server). */
  protocols?: string[];
}

export interface RecordedCall {
  method: string;
  path: string;
  query: Record<string, string[]>;
  /** `pods`, `pods/log`, `pods/exec`, `secrets`, `networkpolicies`, or '' for an unknown path. */
  resource: string;
  verb: string;
  namespace: string | null;
  name: string | null;
  status: number;
  /** The parsed request body (POST). */
  body?: unknown;
  /** For exec: the protocol negotiated and the command. */
  protocol?: string;
  command?: string[];
}

interface ContainerLog {
  chunks: Buffer[];
  bytes: number;
}

interface PodState {
  pod: V1Pod;
  dir: string;
  logs: Map<string, ContainerLog>;
  processes: Set<ChildProcess>;
  deleted: boolean;
}

const LOG_CAP = 8 * 1024 * 1024;
const PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];

class HttpStatus extends Error {
  constructor(readonly status: V1Status & { code: number }) {
    super(status.message);
  }
}

function statusOf(code: number, reason: string, message: string, details?: V1Status['details']): HttpStatus {
  return new HttpStatus({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code });
}

function notFound(kind: string, name: string): HttpStatus {
  return statusOf(404, 'NotFound', `${kind} "${name}" not found`, { name, kind });
}

const KIND_LABEL: Record<string, string> = { pods: 'Pod', secrets: 'Secret', networkpolicies: 'NetworkPolicy' };

function invalid(kind: string, name: string, causes: V1StatusCause[]): HttpStatus {
  const text = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  const label = KIND_LABEL[kind] ?? kind;
  return statusOf(422, 'Invalid', `${label} "${name}" is invalid: ${causes.length > 1 ? `[${text}]` : text}`, { name, kind, causes });
}

function tailOf(text: string, lines: number): string {
  const parts = text.split('\n');
  const trailing = parts[parts.length - 1] === '';
  if (trailing) parts.pop();
  return parts.slice(-lines).join('\n') + (trailing && parts.length > 0 ? '\n' : '');
}

/** The kubelet's FallbackToLogsOnError message: the last 80 lines, at most 2048 bytes. */
function fallbackMessage(text: string): string {
  const tail = tailOf(text, 80);
  const bytes = Buffer.from(tail, 'utf8');
  return bytes.length > 2048 ? bytes.subarray(bytes.length - 2048).toString('utf8') : tail;
}

/**
 * The kubelet's eviction messages, for `evict()`: its eviction manager's formats
 * (kubernetes/kubernetes pkg/kubelet/eviction/helpers.go: podEphemeralStorageMessageFmt,
 * emptyDirMessageFmt, containerEphemeralStorageMessageFmt, nodeLowMessageFmt; `%q` is a Go quoted
 * string), each ending in ". " as the kubelet writes it. See also
 * https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#local-ephemeral-storage
 * and https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/.
 */
export const kubeletEvictionMessage = {
  /** The Pod's storage (its containers' writable layers and logs, its emptyDir volumes) over the sum of its containers' ephemeral-storage limits. */
  podEphemeralStorage: (limit: string): string => `Pod ephemeral local storage usage exceeds the total limit of containers ${limit}. `,
  /** An emptyDir volume over its `sizeLimit`. */
  emptyDir: (volume: string, limit: string): string => `Usage of EmptyDir volume ${JSON.stringify(volume)} exceeds the limit ${JSON.stringify(limit)}. `,
  /** One container's writable layer and logs over its ephemeral-storage limit. */
  containerEphemeralStorage: (container: string, limit: string): string =>
    `Container ${container} exceeded its local ephemeral storage limit ${JSON.stringify(limit)}. `,
  /** The node short of a resource (node-pressure eviction), with what the kubelet appends (thresholds, containers' usage). */
  nodeLow: (resource: string, detail = ''): string => `The node was low on resource: ${resource}. ${detail}`,
};

export class KubernetesStandIn {
  readonly calls: RecordedCall[] = [];
  readonly token: string;
  private readonly rules = new Map<string, StandInRule[] | 'all'>();
  private readonly namespaces: Set<string>;
  private readonly pods = new Map<string, PodState>();
  private readonly secrets = new Map<string, V1Secret>();
  private readonly policies = new Map<string, V1NetworkPolicy>();
  private readonly wss: WebSocketServer;
  private readonly workspacePath: string;
  private readonly protocols: string[];
  private resourceVersion = 1;

  private constructor(
    private readonly server: Server,
    options: StandInOptions,
  ) {
    this.token = options.token ?? `standin-${randomUUID()}`;
    this.rules.set(this.token, 'all');
    for (const [token, rules] of Object.entries(options.tokens ?? {})) this.rules.set(token, rules);
    this.namespaces = new Set(options.namespaces ?? ['default', 'ars-sandboxes']);
    this.workspacePath = options.workspacePath ?? '/workspace';
    const protocols = options.protocols ?? PROTOCOLS;
    this.protocols = protocols;
    this.wss = new WebSocketServer({
      noServer: true,
      handleProtocols: (offered) => protocols.find((p) => offered.has(p)) ?? false,
    });
  }

  static async start(options: StandInOptions = {}): Promise<KubernetesStandIn> {
    const server = createServer();
    const standIn = new KubernetesStandIn(server, options);
    server.on('request', (req, res) => void standIn.handle(req, res));
    server.on('upgrade', (req, socket, head) => void standIn.upgrade(req, socket, head));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return standIn;
  }

  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** The stored Pod (with the status the stand-in keeps), or undefined. */
  pod(namespace: string, name: string): V1Pod | undefined {
    return this.pods.get(`${namespace}/${name}`)?.pod;
  }

  secret(namespace: string, name: string): V1Secret | undefined {
    return this.secrets.get(`${namespace}/${name}`);
  }

  networkPolicy(namespace: string, name: string): V1NetworkPolicy | undefined {
    return this.policies.get(`${namespace}/${name}`);
  }

  /** The local directory standing for the Pod's `/workspace` volume (removed when the Pod is deleted). */
  workspaceOf(namespace: string, name: string): string | undefined {
    return this.pods.get(`${namespace}/${name}`)?.dir;
  }

  // ---- the kubelet's reports (test controls) --------------------------------------------------

  /**
   * Plays the kubelet when a container went over its memory limit (the kernel's OOM killer ended it):
   * every process of the Pod is killed (SIGKILL, so an exec ends 137), and the container's status
   * becomes `terminated` with `reason: OOMKilled`, `exitCode: 137`. With `restartPolicy: Never` the
   * Pod is `Failed` (its Ready conditions `False`, `PodFailed`) and no longer takes execs; with
   * `Always`/`OnFailure` the kubelet restarts the container: `lastState` holds the termination,
   * `restartCount` goes up, the Pod stays `Running`. Answers the Pod as a GET would.
   */
  async oomKill(namespace: string, name: string, container?: string): Promise<V1Pod> {
    const state = this.pods.get(`${namespace}/${name}`);
    if (!state) throw new Error(`no pod ${namespace}/${name}`);
    const status = state.pod.status ?? {};
    const target = status.containerStatuses?.find((c) => container === undefined || c.name === container);
    if (!target?.state?.running) throw new Error(`the container ${container ?? '(first)'} of pod ${namespace}/${name} is not running`);
    await this.killProcesses(state);
    const terminated = { exitCode: 137, reason: 'OOMKilled', startedAt: target.state.running.startedAt ?? new Date(), finishedAt: new Date() };
    if ((state.pod.spec?.restartPolicy ?? 'Always') === 'Never') {
      target.state = { terminated };
      target.ready = false;
      target.started = false;
      this.fail(state, null);
    } else {
      target.lastState = { terminated };
      target.restartCount = (target.restartCount ?? 0) + 1;
      target.state = { running: { startedAt: new Date() } };
    }
    this.touch(state);
    return state.pod;
  }

  /**
   * Plays the kubelet's eviction of a Pod (its eviction manager): every process is killed, each
   * running container ends `terminated` (`Error`, exit 137), and the Pod is `Failed` with
   * `reason: Evicted` and the kubelet's `message` (see `kubeletEvictionMessage` for its formats).
   * An eviction for the node's shortage ("The node was low on resource: …", "The node had
   * condition: …") also carries the `DisruptionTarget` condition (`TerminationByKubelet`) the
   * kubelet adds to those; one for the Pod's own storage limits does not. Answers the Pod as a GET would.
   */
  async evict(namespace: string, name: string, message: string): Promise<V1Pod> {
    const state = this.pods.get(`${namespace}/${name}`);
    if (!state) throw new Error(`no pod ${namespace}/${name}`);
    await this.killProcesses(state);
    const status = state.pod.status ?? {};
    for (const container of status.containerStatuses ?? []) {
      const running = container.state?.running;
      if (!running) continue;
      container.state = { terminated: { exitCode: 137, reason: 'Error', startedAt: running.startedAt ?? new Date(), finishedAt: new Date() } };
      container.ready = false;
      container.started = false;
    }
    const nodePressure = /^The node (was low on resource|had condition): /.test(message);
    this.fail(state, { reason: 'Evicted', message, disruption: nodePressure });
    this.touch(state);
    return state.pod;
  }

  /** The Pod's phase `Failed` as the kubelet reports it: Ready and ContainersReady `False` (`PodFailed`), with its reason and message. */
  private fail(state: PodState, cause: { reason: string; message: string; disruption: boolean } | null): void {
    const status = (state.pod.status ??= {});
    status.phase = 'Failed';
    if (cause) {
      status.reason = cause.reason;
      status.message = cause.message;
    }
    const now = new Date();
    const conditions = (status.conditions ?? []).filter((c) => c.type !== 'Ready' && c.type !== 'ContainersReady' && c.type !== 'DisruptionTarget');
    if (cause?.disruption) {
      conditions.push({ type: 'DisruptionTarget', status: 'True', reason: 'TerminationByKubelet', message: cause.message, lastTransitionTime: now });
    }
    conditions.push(
      { type: 'ContainersReady', status: 'False', reason: 'PodFailed', lastTransitionTime: now },
      { type: 'Ready', status: 'False', reason: 'PodFailed', lastTransitionTime: now },
    );
    status.conditions = conditions;
  }

  /** Calls matching a filter, e.g. `callsOf('pods/exec')`. */
  callsOf(resource: string, verb?: string): RecordedCall[] {
    return this.calls.filter((c) => c.resource === resource && (verb === undefined || c.verb === verb));
  }

  /** One call as any HTTP client makes it (bearer token unless null), the answer read as JSON (`{ text }` otherwise). */
  async request(method: string, path: string, body?: unknown, token: string | null = this.token): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : { text } };
  }

  async stop(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    for (const state of this.pods.values()) await this.destroy(state);
    this.pods.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // ---- HTTP ---------------------------------------------------------------------------------

  private route(method: string, url: URL): Omit<RecordedCall, 'status' | 'method' | 'path' | 'query'> {
    const match =
      /^\/api\/v1\/namespaces\/([^/]+)\/(pods|secrets)(?:\/([^/]+)(?:\/(log|exec))?)?$/.exec(url.pathname) ??
      /^\/apis\/networking\.k8s\.io\/v1\/namespaces\/([^/]+)\/(networkpolicies)(?:\/([^/]+))?()$/.exec(url.pathname);
    if (!match) return { resource: '', verb: '', namespace: null, name: null };
    const [, namespace = '', kind = '', name, sub] = match;
    const resource = sub ? `${kind}/${sub}` : kind;
    let verb: string;
    if (sub === 'exec') verb = 'create';
    else if (method === 'POST') verb = 'create';
    else if (method === 'DELETE') verb = 'delete';
    else verb = name ? 'get' : 'list';
    return { resource, verb, namespace: decodeURIComponent(namespace), name: name ? decodeURIComponent(name) : null };
  }

  private authorize(req: IncomingMessage, route: { resource: string; verb: string; namespace: string | null }): void {
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7) : null;
    const rules = token === null ? undefined : this.rules.get(token);
    if (rules === undefined) throw statusOf(401, 'Unauthorized', 'Unauthorized');
    if (rules === 'all') return;
    const allowed = rules.some(
      (r) => (r.resources.includes(route.resource) || r.resources.includes('*')) && (r.verbs.includes(route.verb) || r.verbs.includes('*')),
    );
    if (!allowed) {
      const [kind, sub] = route.resource.split('/');
      throw statusOf(
        403,
        'Forbidden',
        `${route.resource} is forbidden: User "system:serviceaccount:${route.namespace}:ars-sandboxes" cannot ${route.verb} resource "${kind}"${sub ? ` (subresource "${sub}")` : ''} in API group "" in the namespace "${route.namespace}"`,
        { kind },
      );
    }
  }

  private record(req: IncomingMessage, url: URL, route: ReturnType<KubernetesStandIn['route']>, status: number, extra: Partial<RecordedCall> = {}): void {
    const query: Record<string, string[]> = {};
    for (const [key, value] of url.searchParams) (query[key] ??= []).push(value);
    this.calls.push({ method: req.method ?? 'GET', path: url.pathname, query, ...route, status, ...extra });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const route = this.route(req.method ?? 'GET', url);
    let body: unknown;
    try {
      const raw = await readBody(req);
      if (raw.length > 0) {
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          throw statusOf(400, 'BadRequest', 'the request body is not JSON');
        }
      }
      this.authorize(req, route);
      if (route.resource === '' || route.resource === 'pods/exec') throw statusOf(404, 'NotFound', 'the server could not find the requested resource');
      const answer = await this.dispatch(req.method ?? 'GET', url, route, body);
      this.record(req, url, route, answer.status, body === undefined ? {} : { body });
      res.writeHead(answer.status, { 'content-type': answer.text !== undefined ? 'text/plain' : 'application/json' });
      res.end(answer.text ?? JSON.stringify(answer.json));
    } catch (error) {
      const status = error instanceof HttpStatus ? error.status : statusOf(500, 'InternalError', String(error)).status;
      this.record(req, url, route, status.code, body === undefined ? {} : { body });
      res.writeHead(status.code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status));
    }
  }

  private async dispatch(
    method: string,
    url: URL,
    route: ReturnType<KubernetesStandIn['route']>,
    body: unknown,
  ): Promise<{ status: number; json?: unknown; text?: string }> {
    const namespace = route.namespace ?? '';
    const name = route.name;
    const key = `${namespace}/${name ?? ''}`;
    if (route.resource === 'secrets') {
      if (method === 'POST' && name === null) {
        if (!this.namespaces.has(namespace)) throw notFound('namespaces', namespace);
        const secret = (body ?? {}) as V1Secret;
        this.checkNamespace(secret.metadata?.namespace, namespace);
        const { name: secretName, causes } = validateSecret(secret);
        if (causes.length > 0) throw invalid('secrets', secretName, causes);
        if (this.secrets.has(`${namespace}/${secretName}`))
          throw statusOf(409, 'AlreadyExists', `secrets "${secretName}" already exists`, { name: secretName, kind: 'secrets' });
        const data: Record<string, string> = { ...secret.data };
        for (const [k, v] of Object.entries(secret.stringData ?? {})) data[k] = Buffer.from(v, 'utf8').toString('base64');
        const stored: V1Secret = {
          apiVersion: 'v1',
          kind: 'Secret',
          type: secret.type ?? 'Opaque',
          ...(secret.immutable !== undefined ? { immutable: secret.immutable } : {}),
          metadata: this.metadata(secret.metadata, secretName, namespace),
          data,
        };
        this.secrets.set(`${namespace}/${secretName}`, stored);
        return { status: 201, json: stored };
      }
      if (name === null) throw statusOf(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
      const stored = this.secrets.get(key);
      if (!stored) throw notFound('secrets', name);
      if (method === 'GET') return { status: 200, json: stored };
      if (method === 'DELETE') {
        this.secrets.delete(key);
        return {
          status: 200,
          json: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, kind: 'secrets', uid: stored.metadata?.uid } },
        };
      }
    }
    if (route.resource === 'networkpolicies') return this.dispatchNetworkPolicy(method, namespace, name, body);
    if (route.resource === 'pods') {
      if (method === 'POST' && name === null) {
        if (!this.namespaces.has(namespace)) throw notFound('namespaces', namespace);
        const pod = (body ?? {}) as V1Pod;
        this.checkNamespace(pod.metadata?.namespace, namespace);
        const { name: podName, causes } = validatePod(pod);
        if (causes.length > 0) throw invalid('pods', podName, causes);
        if (this.pods.has(`${namespace}/${podName}`)) throw statusOf(409, 'AlreadyExists', `pods "${podName}" already exists`, { name: podName, kind: 'pods' });
        const state = await this.admit(pod, podName, namespace);
        return { status: 201, json: state.pod };
      }
      if (name === null) throw statusOf(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
      const state = this.pods.get(key);
      if (!state) throw notFound('pods', name);
      if (method === 'GET') return { status: 200, json: state.pod };
      if (method === 'DELETE') {
        const pod = state.pod;
        pod.metadata = { ...pod.metadata, deletionTimestamp: new Date(), deletionGracePeriodSeconds: pod.spec?.terminationGracePeriodSeconds ?? 30 };
        this.pods.delete(key);
        await this.destroy(state);
        return { status: 200, json: pod };
      }
    }
    if (route.resource === 'pods/log' && method === 'GET' && name !== null) {
      const state = this.pods.get(key);
      if (!state) throw notFound('pods', name);
      const all = [...(state.pod.spec?.initContainers ?? []), ...(state.pod.spec?.containers ?? [])].map((c) => c.name);
      let container = url.searchParams.get('container');
      if (!container) {
        const mains = (state.pod.spec?.containers ?? []).map((c) => c.name);
        const inits = (state.pod.spec?.initContainers ?? []).map((c) => c.name);
        if (mains.length + inits.length !== 1) {
          throw statusOf(
            400,
            'BadRequest',
            `a container name must be specified for pod ${name}, choose one of: [${mains.join(' ')}] or one of the init containers: [${inits.join(' ')}]`,
          );
        }
        container = all[0] ?? '';
      }
      if (!all.includes(container)) throw statusOf(400, 'BadRequest', `container ${container} is not valid for pod ${name}`);
      const log = state.logs.get(container);
      if (!log) throw statusOf(400, 'BadRequest', `container "${container}" in pod "${name}" is waiting to start: PodInitializing`);
      let text = Buffer.concat(log.chunks).toString('utf8');
      const tailLines = url.searchParams.get('tailLines');
      if (tailLines !== null) text = tailOf(text, Math.max(0, Number(tailLines)));
      const limitBytes = url.searchParams.get('limitBytes');
      if (limitBytes !== null)
        text = Buffer.from(text, 'utf8')
          .subarray(0, Math.max(1, Number(limitBytes)))
          .toString('utf8');
      return { status: 200, text };
    }
    throw statusOf(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  }

  private dispatchNetworkPolicy(method: string, namespace: string, name: string | null, body: unknown): { status: number; json: unknown } {
    if (method === 'POST' && name === null) {
      if (!this.namespaces.has(namespace)) throw notFound('namespaces', namespace);
      const policy = (body ?? {}) as V1NetworkPolicy;
      this.checkNamespace(policy.metadata?.namespace, namespace);
      const { name: policyName, causes } = validateNetworkPolicy(policy);
      if (causes.length > 0) throw invalid('networkpolicies', policyName, causes);
      const key = `${namespace}/${policyName}`;
      if (this.policies.has(key))
        throw statusOf(409, 'AlreadyExists', `networkpolicies.networking.k8s.io "${policyName}" already exists`, { name: policyName, kind: 'networkpolicies' });
      const stored: V1NetworkPolicy = {
        ...policy,
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: this.metadata(policy.metadata, policyName, namespace),
      };
      this.policies.set(key, stored);
      return { status: 201, json: stored };
    }
    if (name === null) throw statusOf(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
    const stored = this.policies.get(`${namespace}/${name}`);
    if (!stored) throw notFound('networkpolicies.networking.k8s.io', name);
    if (method === 'GET') return { status: 200, json: stored };
    if (method === 'DELETE') {
      this.policies.delete(`${namespace}/${name}`);
      return {
        status: 200,
        json: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Success',
          details: { name, group: 'networking.k8s.io', kind: 'networkpolicies', uid: stored.metadata?.uid },
        },
      };
    }
    throw statusOf(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  }

  private checkNamespace(given: string | undefined, namespace: string): void {
    if (given !== undefined && given !== namespace) {
      throw statusOf(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
    }
  }

  private metadata(given: V1Pod['metadata'], name: string, namespace: string): NonNullable<V1Pod['metadata']> {
    return { ...given, name, namespace, uid: randomUUID(), resourceVersion: String(this.resourceVersion++), creationTimestamp: new Date() };
  }

  // ---- Pods ---------------------------------------------------------------------------------

  private async admit(pod: V1Pod, name: string, namespace: string): Promise<PodState> {
    const spec = pod.spec ?? { containers: [] };
    const stored: V1Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: this.metadata(pod.metadata, name, namespace),
      spec: { restartPolicy: 'Always', ...spec },
      status: {
        phase: 'Pending',
        conditions: [{ type: 'PodScheduled', status: 'True' }],
        initContainerStatuses: (spec.initContainers ?? []).map((c) => this.containerStatus(c, { waiting: { reason: 'PodInitializing' } })),
        containerStatuses: spec.containers.map((c) => this.containerStatus(c, { waiting: { reason: 'PodInitializing' } })),
      },
    };
    const dir = await mkdtemp(join(tmpdir(), `k8s-standin-${name}-`));
    const state: PodState = { pod: stored, dir, logs: new Map(), processes: new Set(), deleted: false };
    this.pods.set(`${namespace}/${name}`, state);
    setImmediate(() => void this.run(state));
    return state;
  }

  private containerStatus(container: V1Container, state: V1ContainerStatus['state']): V1ContainerStatus {
    return { name: container.name, image: container.image ?? '', imageID: '', ready: false, restartCount: 0, started: false, state };
  }

  private touch(state: PodState): void {
    state.pod.metadata = { ...state.pod.metadata, resourceVersion: String(this.resourceVersion++) };
  }

  private async run(state: PodState): Promise<void> {
    const pod = state.pod;
    const status = pod.status ?? {};
    const inits = pod.spec?.initContainers ?? [];
    for (const [index, container] of inits.entries()) {
      if (state.deleted) return;
      const containerStatus = status.initContainerStatuses?.[index];
      if (!containerStatus) continue;
      let env: Record<string, string>;
      try {
        env = this.environment(container, pod.metadata?.namespace ?? '');
      } catch (error) {
        containerStatus.state = { waiting: { reason: 'CreateContainerConfigError', message: (error as Error).message } };
        this.touch(state);
        return; // like the kubelet: the Pod stays Pending
      }
      containerStatus.state = { running: { startedAt: new Date() } };
      containerStatus.started = true;
      this.touch(state);
      const log: ContainerLog = { chunks: [], bytes: 0 };
      state.logs.set(container.name, log);
      const exitCode = await this.runInit(state, container, env, log);
      if (state.deleted) return;
      const text = Buffer.concat(log.chunks).toString('utf8');
      containerStatus.started = false;
      containerStatus.ready = exitCode === 0;
      containerStatus.state = {
        terminated: {
          exitCode,
          reason: exitCode === 0 ? 'Completed' : 'Error',
          startedAt: containerStatus.state.running?.startedAt ?? new Date(),
          finishedAt: new Date(),
          ...(exitCode !== 0 && container.terminationMessagePolicy === 'FallbackToLogsOnError' ? { message: fallbackMessage(text) } : {}),
        },
      };
      if (exitCode !== 0) {
        status.phase = 'Failed';
        for (const main of status.containerStatuses ?? []) main.state = { terminated: { exitCode: 0, reason: 'PodInitializing', finishedAt: new Date() } };
        status.conditions = [
          ...(status.conditions ?? []),
          { type: 'Initialized', status: 'False', reason: 'ContainersNotInitialized', message: `containers with incomplete status: [${container.name}]` },
        ];
        this.touch(state);
        return;
      }
      this.touch(state);
    }
    if (state.deleted) return;
    for (const main of status.containerStatuses ?? []) {
      main.state = { running: { startedAt: new Date() } };
      main.started = true;
      main.ready = true;
      state.logs.set(main.name, { chunks: [], bytes: 0 });
    }
    status.phase = 'Running';
    status.podIP = '127.0.0.1';
    status.startTime = new Date();
    status.conditions = [
      { type: 'PodScheduled', status: 'True' },
      { type: 'Initialized', status: 'True' },
      { type: 'ContainersReady', status: 'True' },
      { type: 'Ready', status: 'True' },
    ];
    this.touch(state);
  }

  /** The container's environment as the kubelet would give it (values and Secret references), plus this machine's PATH. */
  private environment(container: V1Container, namespace: string): Record<string, string> {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin' };
    for (const variable of container.env ?? []) {
      const ref = variable.valueFrom?.secretKeyRef;
      if (ref) {
        const secret = this.secrets.get(`${namespace}/${ref.name}`);
        if (!secret) {
          if (ref.optional) continue;
          throw new Error(`secret "${ref.name}" not found`);
        }
        const value = secret.data?.[ref.key];
        if (value === undefined) {
          if (ref.optional) continue;
          throw new Error(`couldn't find key ${ref.key} in Secret ${namespace}/${ref.name}`);
        }
        env[variable.name] = Buffer.from(value, 'base64').toString('utf8');
      } else env[variable.name] = variable.value ?? '';
    }
    return env;
  }

  /** Where a path of the Pod (`/workspace…`) is on this machine, for the checks made before a process starts. */
  private hostPath(state: PodState, path: string): string {
    if (path === this.workspacePath) return state.dir;
    return path.startsWith(`${this.workspacePath}/`) ? join(state.dir, path.slice(this.workspacePath.length + 1)) : path;
  }

  /**
   * A process of the Pod: under bubblewrap, in a mount namespace of its own where the Pod's
   * directory is mounted at `/workspace` (over this machine's path, created empty when missing) and
   * the rest is this machine's, so every path a Pod sees, passed in arguments, in the environment or
   * on stdin, means what it means in a Pod, and no two Pods share a `/workspace`.
   */
  private spawnIn(state: PodState, container: V1Container, command: string[], env: Record<string, string>): ChildProcess {
    const [file] = command;
    if (!file) throw new Error('no command');
    const workingDir = container.workingDir ?? this.workspacePath;
    const onHost = (path: string): string => this.hostPath(state, isAbsolute(path) ? path : join(workingDir, path));
    if (!executableIn(file, env.PATH, onHost)) throw Object.assign(new Error(`spawn ${file} ENOENT`), { code: 'ENOENT' });
    const bwrap = ['--dev-bind', '/', '/', '--bind', state.dir, this.workspacePath, '--chdir', workingDir, '--die-with-parent', '--', ...command];
    // Its own process group, so a Pod's deletion ends the whole tree (git's helpers included).
    const child = spawn(BWRAP, bwrap, { cwd: state.dir, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    state.processes.add(child);
    child.on('close', () => state.processes.delete(child));
    return child;
  }

  private runInit(state: PodState, container: V1Container, env: Record<string, string>, log: ContainerLog): Promise<number> {
    return new Promise((resolve) => {
      const command = [...(container.command ?? []), ...(container.args ?? [])];
      let child: ChildProcess;
      try {
        child = this.spawnIn(state, { ...container, workingDir: container.workingDir ?? this.workspacePath }, command, env);
      } catch (error) {
        appendLog(log, Buffer.from(`${(error as Error).message}\n`));
        resolve(128);
        return;
      }
      child.stdin?.end();
      child.stdout?.on('data', (chunk: Buffer) => appendLog(log, chunk));
      child.stderr?.on('data', (chunk: Buffer) => appendLog(log, chunk));
      child.on('error', (error) => {
        appendLog(log, Buffer.from(`exec: ${error.message}\n`));
      });
      child.on('close', (code, signal) => resolve(code ?? (signal ? 128 + signalNumber(signal) : 1)));
    });
  }

  private async destroy(state: PodState): Promise<void> {
    state.deleted = true;
    await this.killProcesses(state);
    await rm(state.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  }

  /** Kills every process of the Pod (each leads its own group, so its children go too) and waits until they are gone. */
  private async killProcesses(state: PodState): Promise<void> {
    const exits = [...state.processes].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) {
            resolve();
            return;
          }
          const timer = setTimeout(resolve, 5000);
          child.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          try {
            if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
          } catch {
            child.kill('SIGKILL');
          }
        }),
    );
    await Promise.all(exits);
  }

  // ---- exec ---------------------------------------------------------------------------------

  private refuseUpgrade(socket: Duplex, status: V1Status & { code: number }): void {
    const body = JSON.stringify(status);
    socket.end(
      `HTTP/1.1 ${status.code} ${status.reason ?? 'Error'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const route = this.route(req.method ?? 'GET', url);
    const command = url.searchParams.getAll('command');
    try {
      this.authorize(req, route);
      if (route.resource !== 'pods/exec' || route.name === null) throw statusOf(404, 'NotFound', 'the server could not find the requested resource');
      const state = this.pods.get(`${route.namespace}/${route.name}`);
      if (!state) throw notFound('pods', route.name);
      if (command.length === 0) throw statusOf(400, 'BadRequest', 'you must specify at least 1 command');
      const containers = state.pod.spec?.containers ?? [];
      const containerName = url.searchParams.get('container') ?? (containers.length === 1 ? containers[0]?.name : undefined);
      if (!containerName) throw statusOf(400, 'BadRequest', `a container name must be specified for pod ${route.name}`);
      const container = containers.find((c) => c.name === containerName);
      const running = state.pod.status?.containerStatuses?.find((c) => c.name === containerName)?.state?.running;
      if (!container || state.pod.status?.phase !== 'Running' || !running) {
        throw statusOf(400, 'BadRequest', `unable to upgrade connection: container not found ("${containerName}")`);
      }
      const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
      const protocol = this.protocols.find((p) => offered.includes(p));
      if (!protocol)
        throw statusOf(400, 'BadRequest', `unable to upgrade connection: no supported channel protocol was offered (${this.protocols.join(', ')})`);
      this.record(req, url, route, 101, { protocol, command });
      this.wss.handleUpgrade(req, socket, head, (ws) => this.exec(ws, state, container, command, url.searchParams));
    } catch (error) {
      const status = error instanceof HttpStatus ? error.status : statusOf(500, 'InternalError', String(error)).status;
      this.record(req, url, route, status.code, { command });
      this.refuseUpgrade(socket, status);
    }
  }

  private exec(ws: WebSocket, state: PodState, container: V1Container, command: string[], query: URLSearchParams): void {
    const send = (channel: number, data: Buffer | string): void => {
      if (ws.readyState !== ws.OPEN) return;
      const payload = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      ws.send(Buffer.concat([Buffer.from([channel]), payload]));
    };
    const finish = (status: V1Status): void => {
      send(3, JSON.stringify(status));
      ws.close(1000);
    };
    let env: Record<string, string>;
    try {
      env = this.environment(container, state.pod.metadata?.namespace ?? '');
    } catch (error) {
      finish({ metadata: {}, status: 'Failure', message: (error as Error).message, reason: 'InternalError' });
      return;
    }
    // Frames can arrive before the process exists: they wait in a queue (none may be lost).
    const stdin = query.get('stdin') === 'true' || query.get('stdin') === '1';
    const pending: Buffer[] = [];
    let child: ChildProcess | null = null;
    const deliver = (data: Buffer): void => {
      if (!child) {
        pending.push(data);
        return;
      }
      const channel = data[0];
      if (channel === 0 && stdin) child.stdin?.write(data.subarray(1));
      else if (channel === 255 && data[1] === 0) child.stdin?.end();
    };
    let closed = false;
    ws.on('message', (data: Buffer) => deliver(data));
    ws.on('close', () => {
      closed = true;
      // A real kubelet may leave the process running when the stream goes away; here it ends with it.
      if (child && child.exitCode === null && child.signalCode === null) killGroup(child);
    });
    void stat(container.workingDir ? this.hostPath(state, container.workingDir) : state.dir)
      .catch(() => null)
      .then((info) => {
        const workingDir = info?.isDirectory() ? container.workingDir : this.workspacePath;
        let spawned: ChildProcess;
        try {
          spawned = this.spawnIn(state, { ...container, workingDir }, command, env);
        } catch (error) {
          finish(startFailure(command, error as NodeJS.ErrnoException));
          return;
        }
        child = spawned;
        let spawnError: Error | null = null;
        spawned.on('error', (error) => {
          spawnError = error;
        });
        if (query.get('stdout') === 'true' || query.get('stdout') === '1') spawned.stdout?.on('data', (chunk: Buffer) => send(1, chunk));
        else spawned.stdout?.resume();
        if (query.get('stderr') === 'true' || query.get('stderr') === '1') spawned.stderr?.on('data', (chunk: Buffer) => send(2, chunk));
        else spawned.stderr?.resume();
        spawned.stdin?.on('error', () => undefined);
        if (!stdin) spawned.stdin?.end();
        for (const data of pending.splice(0)) deliver(data);
        if (closed) killGroup(spawned);
        spawned.on('close', (code, signal) => {
          if (spawnError) {
            finish(startFailure(command, spawnError as NodeJS.ErrnoException));
            return;
          }
          const exitCode = code ?? (signal ? 128 + signalNumber(signal) : 1);
          if (exitCode === 0) finish({ metadata: {}, status: 'Success' });
          else {
            finish({
              metadata: {},
              status: 'Failure',
              message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${exitCode}`,
              reason: 'NonZeroExitCode',
              details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
            });
          }
        });
      });
  }
}

/** What the API server answers on the exec stream when the command could not be started. */
function startFailure(command: string[], error: NodeJS.ErrnoException): V1Status {
  const reason = error.code === 'ENOENT' ? `exec: "${command[0]}": executable file not found in $PATH` : error.message;
  return {
    metadata: {},
    status: 'Failure',
    message: `OCI runtime exec failed: exec failed: unable to start container process: ${reason}: unknown`,
    reason: 'InternalError',
  };
}

const BWRAP = 'bwrap';

/**
 * Whether `file` (a path, or a name looked up in the Pod's `PATH`) names an executable, as execvp in
 * the Pod would find it; `onHost` says where a path of the Pod is on this machine.
 */
function executableIn(file: string, path: string | undefined, onHost: (path: string) => string): boolean {
  const dirs = (path ?? '/usr/local/bin:/usr/bin:/bin').split(':').filter(Boolean);
  const candidates = file.includes('/') ? [file] : dirs.map((dir) => join(dir, file));
  return candidates.some((candidate) => {
    try {
      const local = onHost(candidate);
      accessSync(local, constants.X_OK);
      return statSync(local).isFile();
    } catch {
      return false;
    }
  });
}

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

function appendLog(log: ContainerLog, chunk: Buffer): void {
  if (log.bytes >= LOG_CAP) return;
  log.chunks.push(chunk);
  log.bytes += chunk.length;
}

function signalNumber(signal: NodeJS.Signals): number {
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };
  return numbers[signal] ?? 1;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
