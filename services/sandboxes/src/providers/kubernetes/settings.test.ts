import { describe, expect, it } from '@jest/globals';
import { kubernetesSettings, SettingsError } from './settings.js';

function problem(env: Record<string, string>): SettingsError {
  try {
    kubernetesSettings(env);
  } catch (error) {
    if (error instanceof SettingsError) return error;
    throw error;
  }
  throw new Error('expected a SettingsError');
}

describe('the settings have defaults for everything but the image and the cluster', () => {
  it('reads an in-cluster configuration with the default namespace, git image and resources', () => {
    expect(kubernetesSettings({ K8S_IMAGE: 'ghcr.io/acme/sandbox:1', KUBERNETES_SERVICE_HOST: '10.0.0.1', MODEL_GATEWAY_POD_IP: '10.244.0.7' })).toEqual({
      namespace: 'ars-sandboxes',
      image: 'ghcr.io/acme/sandbox:1',
      gitImage: 'alpine/git:2.47.2',
      resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '2', memory: '4Gi', 'ephemeral-storage': '10Gi' } },
      readyTimeoutMs: 300000,
      config: { kind: 'in-cluster' },
      modelGateway: { port: 8090, reachedAt: { podIp: '10.244.0.7' } },
      egressProxy: { port: 8091, reachedAt: { podIp: '10.244.0.7' } },
      noProxy: [],
    });
  });

  it('prefers an explicit server and token, then a kubeconfig file', () => {
    const base = { K8S_IMAGE: 'img', K8S_NODE_SELECTOR: 'pool=agents, zone=a', K8S_SERVICE_ACCOUNT: 'ars-sandbox', MODEL_GATEWAY_POD_IP: '10.244.0.7' };
    const explicit = kubernetesSettings({ ...base, K8S_API_SERVER: 'http://127.0.0.1:8001', K8S_TOKEN: 't', K8S_KUBECONFIG: '/k' });
    expect(explicit.config).toEqual({ kind: 'server', server: 'http://127.0.0.1:8001', token: 't' });
    expect(explicit.nodeSelector).toEqual({ pool: 'agents', zone: 'a' });
    expect(explicit.serviceAccount).toBe('ars-sandbox');
    expect(kubernetesSettings({ ...base, K8S_KUBECONFIG: '/k', K8S_CONTEXT: 'dev' }).config).toEqual({ kind: 'file', path: '/k', context: 'dev' });
  });
});

describe("K8S_POD_PIDS_LIMIT: the kubelet's podPidsLimit on the sandbox nodes, as the operator configured it", () => {
  const base = { K8S_IMAGE: 'img', K8S_KUBECONFIG: '/k', MODEL_GATEWAY_POD_IP: '10.244.0.7' };

  it('is read as an integer ≥ 1; absent, there is none', () => {
    expect(kubernetesSettings({ ...base, K8S_POD_PIDS_LIMIT: ' 1024 ' }).podPidsLimit).toBe(1024);
    expect(kubernetesSettings({ ...base, K8S_POD_PIDS_LIMIT: '1' }).podPidsLimit).toBe(1);
    expect('podPidsLimit' in kubernetesSettings(base)).toBe(false);
    expect('podPidsLimit' in kubernetesSettings({ ...base, K8S_POD_PIDS_LIMIT: '' })).toBe(false);
  });
});

describe('the model gateway: the port this service listens on for its Pods, and how a Pod reaches this instance', () => {
  const base = { K8S_IMAGE: 'img', K8S_KUBECONFIG: '/k' };

  it('MODEL_GATEWAY_URL as given (no trailing slash) wins over the Pod IP; MODEL_GATEWAY_PORT defaults to 8090', () => {
    expect(
      kubernetesSettings({ ...base, MODEL_GATEWAY_URL: 'http://ars-sandboxes-model.ars.svc:8090/', MODEL_GATEWAY_POD_IP: '10.0.0.9' }).modelGateway,
    ).toEqual({
      port: 8090,
      reachedAt: { url: 'http://ars-sandboxes-model.ars.svc:8090' },
    });
  });

  it("without a URL, this instance's own Pod IP (IPv4 or IPv6) on MODEL_GATEWAY_PORT, 0 taking any free port", () => {
    expect(kubernetesSettings({ ...base, MODEL_GATEWAY_POD_IP: 'fd00::7', MODEL_GATEWAY_PORT: '9000' }).modelGateway).toEqual({
      port: 9000,
      reachedAt: { podIp: 'fd00::7' },
    });
    expect(kubernetesSettings({ ...base, MODEL_GATEWAY_POD_IP: '127.0.0.1', MODEL_GATEWAY_PORT: '0' }).modelGateway.port).toBe(0);
  });

  it('is required: neither a URL nor the Pod IP names MODEL_GATEWAY_URL', () => {
    expect(problem(base).variable).toBe('MODEL_GATEWAY_URL');
    expect(problem(base).message).toMatch(/MODEL_GATEWAY_URL or MODEL_GATEWAY_POD_IP is required/);
  });
});

describe('a bad or missing value names its variable', () => {
  const gateway = { MODEL_GATEWAY_POD_IP: '10.244.0.7' };
  it.each([
    [{}, 'K8S_IMAGE'],
    [{ K8S_IMAGE: 'i', ...gateway }, 'K8S_KUBECONFIG'],
    [{ K8S_IMAGE: 'i', K8S_API_SERVER: 'https://k8s', ...gateway }, 'K8S_TOKEN'],
    [{ K8S_IMAGE: 'i', K8S_API_SERVER: 'k8s:443', K8S_TOKEN: 't', ...gateway }, 'K8S_API_SERVER'],
    [{ K8S_IMAGE: 'i', K8S_KUBECONFIG: '/k', K8S_NAMESPACE: 'Bad_NS', ...gateway }, 'K8S_NAMESPACE'],
    [{ K8S_IMAGE: 'i', K8S_KUBECONFIG: '/k', K8S_CPU_LIMIT: 'two', ...gateway }, 'K8S_CPU_LIMIT'],
    [{ K8S_IMAGE: 'i', K8S_KUBECONFIG: '/k', K8S_MEMORY_REQUEST: '8Gi', ...gateway }, 'K8S_MEMORY_REQUEST'],
    [{ K8S_IMAGE: 'i', K8S_KUBECONFIG: '/k', K8S_NODE_SELECTOR: 'pool', ...gateway }, 'K8S_NODE_SELECTOR'],
    [{ K8S_IMAGE: 'i', K8S_KUBECONFIG: '/k', K8S_READY_TIMEOUT_MS: 'soon', ...gateway }, 'K8S_READY_TIMEOUT_MS'],
    [{ K8S_IMAGE: 'i', K8S_KUBECONFIG: '/k', K8S_POD_PIDS_LIMIT: '0', ...gateway }, 'K8S_POD_PIDS_LIMIT'],
    [{ K8S_IMAGE: 'i', K8S_KUBECONFIG: '/k', K8S_POD_PIDS_LIMIT: '-1', ...gateway }, 'K8S_POD_PIDS_LIMIT'],
    [{ K8S_IMAGE: 'i', K8S_KUBECONFIG: '/k', K8S_POD_PIDS_LIMIT: '512.5', ...gateway }, 'K8S_POD_PIDS_LIMIT'],
    [{ K8S_IMAGE: 'i', K8S_KUBECONFIG: '/k', K8S_POD_PIDS_LIMIT: 'many', ...gateway }, 'K8S_POD_PIDS_LIMIT'],
    [{ K8S_IMAGE: 'i', K8S_KUBECONFIG: '/k', MODEL_GATEWAY_PORT: '70000', ...gateway }, 'MODEL_GATEWAY_PORT'],
    [{ K8S_IMAGE: 'i', K8S_KUBECONFIG: '/k', MODEL_GATEWAY_PORT: 'eighty', ...gateway }, 'MODEL_GATEWAY_PORT'],
    [{ K8S_IMAGE: 'i', K8S_KUBECONFIG: '/k', MODEL_GATEWAY_URL: 'ars-sandboxes:8090' }, 'MODEL_GATEWAY_URL'],
    [{ K8S_IMAGE: 'i', K8S_KUBECONFIG: '/k', MODEL_GATEWAY_URL: 'http://u:p@ars-sandboxes:8090' }, 'MODEL_GATEWAY_URL'],
    [{ K8S_IMAGE: 'i', K8S_KUBECONFIG: '/k', MODEL_GATEWAY_POD_IP: 'sandboxes-0' }, 'MODEL_GATEWAY_POD_IP'],
  ] as Array<[Record<string, string>, string]>)('%j names %s', (env, variable) => {
    const error = problem(env);
    expect(error.variable).toBe(variable);
    expect(error.message.startsWith(variable)).toBe(true);
  });
});

describe('the egress proxy listens beside the model gateway, on a port of its own; K8S_NO_PROXY names the hosts reached directly', () => {
  const base = { K8S_IMAGE: 'img', KUBERNETES_SERVICE_HOST: '10.0.0.1' };

  it('on the Pod IP by default; with MODEL_GATEWAY_URL, on its host; EGRESS_PROXY_URL when given', () => {
    expect(kubernetesSettings({ ...base, MODEL_GATEWAY_POD_IP: '10.244.0.7', EGRESS_PROXY_PORT: '9000' }).egressProxy).toEqual({
      port: 9000,
      reachedAt: { podIp: '10.244.0.7' },
    });
    expect(kubernetesSettings({ ...base, MODEL_GATEWAY_URL: 'http://ars-sandboxes.ars.svc:8090' }).egressProxy).toEqual({
      port: 8091,
      reachedAt: { host: 'ars-sandboxes.ars.svc' },
    });
    expect(kubernetesSettings({ ...base, MODEL_GATEWAY_URL: 'http://gw:8090', EGRESS_PROXY_URL: 'http://egress.ars.svc:3128/' }).egressProxy).toEqual({
      port: 8091,
      reachedAt: { url: 'http://egress.ars.svc:3128' },
    });
  });

  it.each([
    [{ EGRESS_PROXY_PORT: 'x' }, 'EGRESS_PROXY_PORT must be a port number (0–65535), got "x"'],
    [{ EGRESS_PROXY_PORT: '8090' }, 'EGRESS_PROXY_PORT must differ from MODEL_GATEWAY_PORT (8090)'],
    [{ EGRESS_PROXY_URL: 'https://egress:3128' }, 'EGRESS_PROXY_URL must be an http URL (the proxy speaks plain HTTP CONNECT), got "https://egress:3128"'],
    [{ EGRESS_PROXY_URL: 'http://u:p@egress:3128' }, 'EGRESS_PROXY_URL must have no credentials, query or fragment, got "http://u:p@egress:3128"'],
    [{ EGRESS_PROXY_URL: 'http://egress:3128/x' }, 'EGRESS_PROXY_URL must have no path, got "http://egress:3128/x"'],
    [{ K8S_NO_PROXY: 'git.internal, bad host' }, 'K8S_NO_PROXY must be host names (.suffix for a domain) or IP addresses separated by commas, got "bad host"'],
  ])('%j is refused naming the variable', (env, message) => {
    expect(() => kubernetesSettings({ ...base, MODEL_GATEWAY_POD_IP: '10.244.0.7', ...env })).toThrow(message);
  });

  it('K8S_NO_PROXY: names, .suffixes and addresses, trimmed and lower-cased', () => {
    expect(
      kubernetesSettings({ ...base, MODEL_GATEWAY_POD_IP: '10.244.0.7', K8S_NO_PROXY: ' Git.Internal.Example, .corp.example,10.20.0.5 ' }).noProxy,
    ).toEqual(['git.internal.example', '.corp.example', '10.20.0.5']);
  });
});
