import { validateNetworkPolicy } from '@ars/kubernetes-stand-in';
import { PREVIEW_PORTS } from './kubernetesProvider.js';
import { CLUSTER_INTERNAL_RANGES, DEFAULT_MODEL_GATEWAY_PEER, MODEL_PROVIDER_RANGES, sandboxNetworkPolicy, type ModelGatewayPeer } from './networkPolicy.js';
import { buildSandboxManifests } from './podManifest.js';

/** The chart's: the release's sandboxes Pods, in the release's namespace, on MODEL_GATEWAY_PORT. */
const RELEASE_GATEWAY: ModelGatewayPeer = {
  namespace: 'ars',
  podLabels: { 'app.kubernetes.io/name': 'agent-run-service', 'app.kubernetes.io/instance': 'ars', 'app.kubernetes.io/component': 'sandboxes' },
  port: 8090,
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

describe('egress to DNS, to the model gateway port of the sandboxes service, and to the internet but never cluster-internal or model provider addresses', () => {
  test('DNS only to kube-dns, on port 53', () => {
    const dns = spec.egress?.[0];
    expect(dns?.to?.[0]?.podSelector?.matchLabels).toEqual({ 'k8s-app': 'kube-dns' });
    expect(dns?.ports?.map((port) => `${port.protocol}/${String(port.port)}`)).toEqual(['UDP/53', 'TCP/53']);
  });

  test("the model gateway: the sandboxes service's Pods of the release's namespace, on MODEL_GATEWAY_PORT only", () => {
    expect(spec.egress?.[1]).toEqual({
      to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ars' } }, podSelector: { matchLabels: RELEASE_GATEWAY.podLabels } }],
      ports: [{ protocol: 'TCP', port: 8090 }],
    });
  });

  test("without a release to name, the gateway is the sandboxes service's Pods by their labels in any namespace, on port 8090", () => {
    expect(sandboxNetworkPolicy({ namespace: 'n' }).spec?.egress?.[1]).toEqual({
      to: [
        {
          namespaceSelector: {},
          podSelector: { matchLabels: { 'app.kubernetes.io/part-of': 'agent-run-service', 'app.kubernetes.io/component': 'sandboxes' } },
        },
      ],
      ports: [{ protocol: 'TCP', port: DEFAULT_MODEL_GATEWAY_PEER.port }],
    });
    expect(DEFAULT_MODEL_GATEWAY_PEER.port).toBe(8090);
  });

  test('every address but the private, link-local (metadata), shared and loopback ranges, and the model providers’ published ones', () => {
    const internet = spec.egress?.[2];
    expect(internet?.ports).toBeUndefined();
    expect(internet?.to).toEqual([
      { ipBlock: { cidr: '0.0.0.0/0', except: [...CLUSTER_INTERNAL_RANGES.ipv4, ...MODEL_PROVIDER_RANGES.ipv4] } },
      { ipBlock: { cidr: '::/0', except: [...CLUSTER_INTERNAL_RANGES.ipv6, ...MODEL_PROVIDER_RANGES.ipv6] } },
    ]);
    expect(CLUSTER_INTERNAL_RANGES.ipv4).toEqual(expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16']));
    // api.anthropic.com's published addresses.
    expect(MODEL_PROVIDER_RANGES).toEqual({ ipv4: ['160.79.104.0/23'], ipv6: ['2607:6bc0::/48'] });
    expect(spec.egress).toHaveLength(3);
  });

  test('the provider ranges can be replaced (a provider endpoint of fixed addresses), the internal ones widened', () => {
    const custom = sandboxNetworkPolicy({
      namespace: 'n',
      modelProviderRanges: { ipv4: ['203.0.113.0/24'], ipv6: [] },
      internalRanges: { ipv4: ['10.0.0.0/8'], ipv6: [] },
    });
    expect(custom.spec?.egress?.[2]?.to?.map((peer) => peer.ipBlock?.except)).toEqual([['10.0.0.0/8', '203.0.113.0/24'], []]);
  });

  test('an internal destination is reachable only when named (a source host inside the cluster)', () => {
    const peer = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'git' } } };
    expect(sandboxNetworkPolicy({ namespace: 'n', allowEgressTo: [peer] }).spec?.egress?.[3]).toEqual({ to: [peer] });
  });
});
