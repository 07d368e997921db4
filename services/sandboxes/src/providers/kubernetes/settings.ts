// The Kubernetes provider's settings from the environment (pure: the caller passes the variables).
// A bad or missing value is a SettingsError naming the variable, like @ars/config's messages.
import { isIP } from 'node:net';
import type { KubeConfigSource } from './kubernetesPods.js';
import { isDnsLabel, isDnsSubdomain, isLabelKey, isLabelValue, isQuantity, quantityValue, type SandboxResources } from './podManifest.js';

export interface KubernetesSettings {
  namespace: string;
  image: string;
  gitImage: string;
  resources: SandboxResources;
  /**
   * `K8S_POD_PIDS_LIMIT`: the kubelet's `podPidsLimit` on the sandbox nodes, as the operator configured
   * it (the service cannot read a kubelet's configuration): reported as the sandboxes' process limit.
   */
  podPidsLimit?: number;
  serviceAccount?: string;
  nodeSelector?: Record<string, string>;
  readyTimeoutMs: number;
  config: KubeConfigSource;
  modelGateway: ModelGatewayPlace;
  egressProxy: EgressProxyPlace;
  /** `K8S_NO_PROXY`: hosts a Pod reaches directly, not through the egress proxy (its NetworkPolicy must allow them too). */
  noProxy: string[];
}

/**
 * Where this service's model gateway listens for its Pods, and how a Pod reaches it. A door lives in
 * the instance that opened it, so a Pod must reach that instance itself: its own Pod IP (the
 * downward API's `status.podIP`), or a URL that leads to it alone (one replica behind a Service).
 */
export interface ModelGatewayPlace {
  /** `MODEL_GATEWAY_PORT` (0: any free port, tests). */
  port: number;
  /** `MODEL_GATEWAY_URL` as given (no trailing slash), or this instance's Pod IP (`MODEL_GATEWAY_POD_IP`), on the port bound. */
  reachedAt: { url: string } | { podIp: string };
}

export const DEFAULT_MODEL_GATEWAY_PORT = 8090;

/**
 * Where this service's egress proxy listens for its Pods, and how a Pod reaches it: like the model
 * gateway, a grant lives in the instance that made it, so a Pod is sent to that instance itself.
 */
export interface EgressProxyPlace {
  /** `EGRESS_PROXY_PORT` (0: any free port, tests). */
  port: number;
  /** `EGRESS_PROXY_URL` as given, or this instance's Pod IP (`MODEL_GATEWAY_POD_IP`), or the model gateway URL's host, on the port bound. */
  reachedAt: { url: string } | { podIp: string } | { host: string };
}

export const DEFAULT_EGRESS_PROXY_PORT = 8091;

export class SettingsError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable} ${problem}`);
  }
}

export const DEFAULT_GIT_IMAGE = 'alpine/git:2.47.2';

type Env = Record<string, string | undefined>;

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function quantity(env: Env, name: string, fallback: string): string {
  const value = text(env, name) ?? fallback;
  if (!isQuantity(value)) throw new SettingsError(name, `must be a Kubernetes quantity (e.g. 500m, 2, 1Gi), got "${value}"`);
  return value;
}

/** Reads `K8S_*` (see README.md, "Configuration it will take"). */
export function kubernetesSettings(env: Env): KubernetesSettings {
  const namespace = text(env, 'K8S_NAMESPACE') ?? 'ars-sandboxes';
  if (!isDnsLabel(namespace)) throw new SettingsError('K8S_NAMESPACE', 'must be a DNS label (lower case letters, digits, "-")');
  const image = text(env, 'K8S_IMAGE');
  if (!image) throw new SettingsError('K8S_IMAGE', 'is required (the sandbox image: the harness CLIs, node, git, sh)');
  const gitImage = text(env, 'K8S_GIT_IMAGE') ?? DEFAULT_GIT_IMAGE;

  const resources: SandboxResources = {
    requests: { cpu: quantity(env, 'K8S_CPU_REQUEST', '500m'), memory: quantity(env, 'K8S_MEMORY_REQUEST', '1Gi') },
    limits: {
      cpu: quantity(env, 'K8S_CPU_LIMIT', '2'),
      memory: quantity(env, 'K8S_MEMORY_LIMIT', '4Gi'),
      'ephemeral-storage': quantity(env, 'K8S_EPHEMERAL_STORAGE_LIMIT', '10Gi'),
    },
  };
  for (const [kind, request, limit] of [
    ['CPU', resources.requests.cpu, resources.limits.cpu],
    ['MEMORY', resources.requests.memory, resources.limits.memory],
  ] as const) {
    const r = quantityValue(request ?? '0');
    const l = quantityValue(limit ?? '0');
    if (r !== null && l !== null && r > l) throw new SettingsError(`K8S_${kind}_REQUEST`, `(${request}) must not exceed K8S_${kind}_LIMIT (${limit})`);
  }

  const pidsText = text(env, 'K8S_POD_PIDS_LIMIT');
  const podPidsLimit = pidsText === undefined ? undefined : Number(pidsText);
  if (pidsText !== undefined && (!/^\d+$/.test(pidsText) || !Number.isSafeInteger(podPidsLimit) || Number(pidsText) < 1)) {
    throw new SettingsError('K8S_POD_PIDS_LIMIT', `must be an integer ≥ 1 (the kubelet's podPidsLimit on the sandbox nodes), got "${pidsText}"`);
  }

  const serviceAccount = text(env, 'K8S_SERVICE_ACCOUNT');
  if (serviceAccount !== undefined && !isDnsSubdomain(serviceAccount)) throw new SettingsError('K8S_SERVICE_ACCOUNT', 'must be a DNS subdomain');

  let nodeSelector: Record<string, string> | undefined;
  const selector = text(env, 'K8S_NODE_SELECTOR');
  if (selector !== undefined) {
    nodeSelector = {};
    for (const pair of selector
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)) {
      const eq = pair.indexOf('=');
      const key = eq > 0 ? pair.slice(0, eq) : '';
      const value = eq > 0 ? pair.slice(eq + 1) : '';
      if (!isLabelKey(key) || !isLabelValue(value)) throw new SettingsError('K8S_NODE_SELECTOR', `must be key=value pairs separated by commas, got "${pair}"`);
      nodeSelector[key] = value;
    }
  }

  const timeout = text(env, 'K8S_READY_TIMEOUT_MS') ?? '300000';
  const readyTimeoutMs = Number(timeout);
  if (!Number.isInteger(readyTimeoutMs) || readyTimeoutMs < 1000)
    throw new SettingsError('K8S_READY_TIMEOUT_MS', `must be an integer ≥ 1000, got "${timeout}"`);

  let config: KubeConfigSource;
  const server = text(env, 'K8S_API_SERVER');
  const kubeconfig = text(env, 'K8S_KUBECONFIG');
  if (server !== undefined) {
    if (!/^https?:\/\/[^\s]+$/.test(server)) throw new SettingsError('K8S_API_SERVER', 'must be an http(s) URL');
    const token = text(env, 'K8S_TOKEN');
    if (!token) throw new SettingsError('K8S_TOKEN', 'is required with K8S_API_SERVER');
    config = { kind: 'server', server, token };
  } else if (kubeconfig !== undefined) {
    const context = text(env, 'K8S_CONTEXT');
    config = { kind: 'file', path: kubeconfig, ...(context ? { context } : {}) };
  } else {
    if (!text(env, 'KUBERNETES_SERVICE_HOST')) {
      throw new SettingsError('K8S_KUBECONFIG', 'or K8S_API_SERVER is required outside a cluster (KUBERNETES_SERVICE_HOST is not set)');
    }
    config = { kind: 'in-cluster' };
  }

  const modelGateway = modelGatewayPlace(env);
  const egressProxy = egressProxyPlace(env, modelGateway);
  const noProxy = noProxyHosts(env);

  return {
    namespace,
    image,
    gitImage,
    resources,
    readyTimeoutMs,
    config,
    modelGateway,
    egressProxy,
    noProxy,
    ...(podPidsLimit !== undefined ? { podPidsLimit } : {}),
    ...(serviceAccount !== undefined ? { serviceAccount } : {}),
    ...(nodeSelector !== undefined ? { nodeSelector } : {}),
  };
}

/** `MODEL_GATEWAY_PORT`, and `MODEL_GATEWAY_URL` or else `MODEL_GATEWAY_POD_IP`: one of the two is required. */
function modelGatewayPlace(env: Env): ModelGatewayPlace {
  const portText = text(env, 'MODEL_GATEWAY_PORT') ?? String(DEFAULT_MODEL_GATEWAY_PORT);
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65_535) throw new SettingsError('MODEL_GATEWAY_PORT', `must be a port number (0–65535), got "${portText}"`);
  const url = text(env, 'MODEL_GATEWAY_URL');
  if (url !== undefined) {
    const problem = gatewayUrlProblem(url);
    if (problem) throw new SettingsError('MODEL_GATEWAY_URL', `${problem}, got "${url}"`);
    return { port, reachedAt: { url: url.replace(/\/+$/, '') } };
  }
  const podIp = text(env, 'MODEL_GATEWAY_POD_IP');
  if (podIp !== undefined) {
    if (isIP(podIp) === 0) throw new SettingsError('MODEL_GATEWAY_POD_IP', `must be an IP address (the downward API's status.podIP), got "${podIp}"`);
    return { port, reachedAt: { podIp } };
  }
  throw new SettingsError(
    'MODEL_GATEWAY_URL',
    "or MODEL_GATEWAY_POD_IP is required: how a sandbox Pod reaches this instance's model gateway (its only way to a model)",
  );
}

/** `EGRESS_PROXY_PORT`, and `EGRESS_PROXY_URL` or else where the model gateway is reached (same instance, its own port). */
function egressProxyPlace(env: Env, modelGateway: ModelGatewayPlace): EgressProxyPlace {
  const portText = text(env, 'EGRESS_PROXY_PORT') ?? String(DEFAULT_EGRESS_PROXY_PORT);
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65_535) throw new SettingsError('EGRESS_PROXY_PORT', `must be a port number (0–65535), got "${portText}"`);
  if (port !== 0 && port === modelGateway.port) throw new SettingsError('EGRESS_PROXY_PORT', `must differ from MODEL_GATEWAY_PORT (${port})`);
  const url = text(env, 'EGRESS_PROXY_URL');
  if (url !== undefined) {
    const problem = gatewayUrlProblem(url) ?? (url.startsWith('http:') ? null : 'must be an http URL (the proxy speaks plain HTTP CONNECT)');
    if (problem) throw new SettingsError('EGRESS_PROXY_URL', `${problem}, got "${url}"`);
    if (new URL(url).pathname !== '/') throw new SettingsError('EGRESS_PROXY_URL', `must have no path, got "${url}"`);
    return { port, reachedAt: { url: url.replace(/\/+$/, '') } };
  }
  if ('podIp' in modelGateway.reachedAt) return { port, reachedAt: { podIp: modelGateway.reachedAt.podIp } };
  return { port, reachedAt: { host: new URL(modelGateway.reachedAt.url).hostname } };
}

/** `K8S_NO_PROXY`: comma-separated host names (`.suffix` for a domain) or IP addresses. */
function noProxyHosts(env: Env): string[] {
  const value = text(env, 'K8S_NO_PROXY');
  if (value === undefined) return [];
  const hosts = value
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter((host) => host !== '');
  for (const host of hosts) {
    const name = host.startsWith('.') ? host.slice(1) : host;
    if (isIP(name.replace(/^\[|\]$/g, '')) === 0 && !isDnsSubdomain(name))
      throw new SettingsError('K8S_NO_PROXY', `must be host names (.suffix for a domain) or IP addresses separated by commas, got "${host}"`);
  }
  return hosts;
}

/** Why a MODEL_GATEWAY_URL cannot be a CLI's model base URL, or null. */
function gatewayUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http(s) URL';
  if (url.username || url.password || url.search || url.hash) return 'must have no credentials, query or fragment';
  return null;
}
