import { validateNetworkPolicy } from '@ars/kubernetes-stand-in';
import { PREVIEW_PORTS } from './kubernetesProvider.js';
import { DEFAULT_MODEL_GATEWAY_PEER, sandboxNetworkPolicy, type ModelGatewayPeer } from './networkPolicy.js';
import { buildSandboxManifests } from './podManifest.js';

/** The chart's: the release's sandboxes Pods, in the release's namespace, on MODEL_GATEWAY_PORT and EGRESS_PROXY_PORT. */
const RELEASE_GATEWAY: ModelGatewayPeer = {
  namespace: 'ars',
  podLabels: { 'app.kubernetes.io/name': 'agent-run-service', 'app.kubernetes.io/instance': 'ars', 'app.kubernetes.io/component': 'sandboxes' },
  port: 8090,
  egressProxyPort: 8091,
};
const policy = sandboxNetworkPolicy({ namespace: 'ars-sandboxes', modelGateway: RELEASE_GATEWAY });
const spec = policy.spec!;

describe('the NetworkPolicy selects every sandbox Pod and governs both directions', () => {
  test('its selector matches the labels of a sandbox Pod; Ingress and Egress are both restricted', () => {
    const { pod } = buildSandboxManifests({
      sandboxId: 'sbx-1',
      namespace: 'ars-sandboxes',
      image: 'sandbox:1',
      gitImage: 'git:1',
      resources: { requests: {}, limits: {} },
      cloneUrl: 'https://example.invalid/r.git',
      baseBranch: 'main',
      workingBranch: 'main',
      createBranch: false,
      rootDirectory: null,
      labels: { team: 'a' },
    });
    for (const [key, value] of Object.entries(spec.podSelector?.matchLabels ?? {})) expect(pod.metadata?.labels?.[key]).toBe(value);
    expect(spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(policy).toMatchObject({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { namespace: 'ars-sandboxes' } });
  });

  test("it is valid by the API server's rules, with a named gateway and with the default one", () => {
    const wire = (object: unknown): unknown => JSON.parse(JSON.stringify(object));
    expect(validateNetworkPolicy(wire(policy)).causes).toEqual([]);
    expect(validateNetworkPolicy(wire(sandboxNetworkPolicy({ namespace: 'ars-sandboxes' }))).causes).toEqual([]);
  });
});

describe('no ingress but the preview ports', () => {
  test('one ingress rule: TCP on the preview port range only', () => {
    expect(spec.ingress).toEqual([{ ports: [{ protocol: 'TCP', port: PREVIEW_PORTS.min, endPort: PREVIEW_PORTS.max }] }]);
  });
  test('who may open it can be narrowed to given peers', () => {
    const narrowed = sandboxNetworkPolicy({ namespace: 'n', previewFrom: [{ podSelector: { matchLabels: { app: 'sandboxes' } } }] });
    // The manifest is applied as JSON, where the field is `from` (client-node names it `_from` in its models).
    expect((narrowed.spec?.ingress?.[0] as { from?: unknown } | undefined)?.from).toEqual([{ podSelector: { matchLabels: { app: 'sandboxes' } } }]);
  });
});

describe('egress only to the sandboxes service: its model gateway and egress proxy ports; no internet, no DNS, no cluster address', () => {
  test("one rule: the sandboxes service's Pods of the release's namespace, on MODEL_GATEWAY_PORT and EGRESS_PROXY_PORT only", () => {
    expect(spec.egress).toEqual([
      {
        to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ars' } }, podSelector: { matchLabels: RELEASE_GATEWAY.podLabels } }],
        ports: [
          { protocol: 'TCP', port: 8090 },
          { protocol: 'TCP', port: 8091 },
        ],
      },
    ]);
  });

  test("without a release to name, the sandboxes service's Pods by their labels in any namespace, on ports 8090 and 8091", () => {
    expect(sandboxNetworkPolicy({ namespace: 'n' }).spec?.egress).toEqual([
      {
        to: [
          {
            namespaceSelector: {},
            podSelector: { matchLabels: { 'app.kubernetes.io/part-of': 'agent-run-service', 'app.kubernetes.io/component': 'sandboxes' } },
          },
        ],
        ports: [
          { protocol: 'TCP', port: DEFAULT_MODEL_GATEWAY_PEER.port },
          { protocol: 'TCP', port: DEFAULT_MODEL_GATEWAY_PEER.egressProxyPort },
        ],
      },
    ]);
    expect([DEFAULT_MODEL_GATEWAY_PEER.port, DEFAULT_MODEL_GATEWAY_PEER.egressProxyPort]).toEqual([8090, 8091]);
  });

  test('no rule names an address block: the internet, the cluster and the model providers are reached only through the proxy', () => {
    const peers = (spec.egress ?? []).flatMap((rule) => rule.to ?? []);
    expect(peers.filter((peer) => peer.ipBlock !== undefined)).toEqual([]);
  });

  test('DNS, only when hosts are reached directly (K8S_NO_PROXY): kube-dns on port 53', () => {
    const dns = sandboxNetworkPolicy({ namespace: 'n', dns: true }).spec?.egress?.[1];
    expect(dns?.to?.[0]?.podSelector?.matchLabels).toEqual({ 'k8s-app': 'kube-dns' });
    expect(dns?.ports?.map((port) => `${port.protocol}/${String(port.port)}`)).toEqual(['UDP/53', 'TCP/53']);
    expect(sandboxNetworkPolicy({ namespace: 'n' }).spec?.egress).toHaveLength(1);
  });

  test('a destination reached directly is reachable only when named (a source host inside the cluster)', () => {
    const peer = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'git' } } };
    expect(sandboxNetworkPolicy({ namespace: 'n', allowEgressTo: [peer] }).spec?.egress?.[1]).toEqual({ to: [peer] });
  });
});
