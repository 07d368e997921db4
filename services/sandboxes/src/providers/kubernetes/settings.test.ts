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
    expect(kubernetesSettings({ K8S_IMAGE: 'ghcr.io/acme/sandbox:1', KUBERNETES_SERVICE_HOST: '10.0.0.1' })).toEqual({
      namespace: 'ars-sandboxes',
      image: 'ghcr.io/acme/sandbox:1',
      gitImage: 'alpine/git:2.47.2',
      resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '2', memory: '4Gi', 'ephemeral-storage': '10Gi' } },
      readyTimeoutMs: 300000,
      config: { kind: 'in-cluster' },
    });
  });

  it('prefers an explicit server and token, then a kubeconfig file', () => {
    const base = { K8S_IMAGE: 'img', K8S_NODE_SELECTOR: 'pool=agents, zone=a', K8S_SERVICE_ACCOUNT: 'ars-sandbox' };
    const explicit = kubernetesSettings({ ...base, K8S_API_SERVER: 'http://127.0.0.1:8001', K8S_TOKEN: 't', K8S_KUBECONFIG: '/k' });
    expect(explicit.config).toEqual({ kind: 'server', server: 'http://127.0.0.1:8001', token: 't' });
    expect(explicit.nodeSelector).toEqual({ pool: 'agents', zone: 'a' });
    expect(explicit.serviceAccount).toBe('ars-sandbox');
    expect(kubernetesSettings({ ...base, K8S_KUBECONFIG: '/k', K8S_CONTEXT: 'dev' }).config).toEqual({ kind: 'file', path: '/k', context: 'dev' });
  });
});

describe('a bad or missing value names its variable', () => {
  it.each([
    [{}, 'K8S_IMAGE'],
    [{ K8S_IMAGE: 'i' }, 'K8S_KUBECONFIG'],
    [{ K8S_IMAGE: 'i', K8S_API_SERVER: 'https://k8s' }, 'K8S_TOKEN'],
    [{ K8S_IMAGE: 'i', K8S_API_SERVER: 'k8s:443', K8S_TOKEN: 't' }, 'K8S_API_SERVER'],
    [{ K8S_IMAGE: 'i', K8S_KUBECONFIG: '/k', K8S_NAMESPACE: 'Bad_NS' }, 'K8S_NAMESPACE'],
    [{ K8S_IMAGE: 'i', K8S_KUBECONFIG: '/k', K8S_CPU_LIMIT: 'two' }, 'K8S_CPU_LIMIT'],
    [{ K8S_IMAGE: 'i', K8S_KUBECONFIG: '/k', K8S_MEMORY_REQUEST: '8Gi' }, 'K8S_MEMORY_REQUEST'],
    [{ K8S_IMAGE: 'i', K8S_KUBECONFIG: '/k', K8S_NODE_SELECTOR: 'pool' }, 'K8S_NODE_SELECTOR'],
    [{ K8S_IMAGE: 'i', K8S_KUBECONFIG: '/k', K8S_READY_TIMEOUT_MS: 'soon' }, 'K8S_READY_TIMEOUT_MS'],
  ] as Array<[Record<string, string>, string]>)('%j names %s', (env, variable) => {
    const error = problem(env);
    expect(error.variable).toBe(variable);
    expect(error.message.startsWith(variable)).toBe(true);
  });
});
