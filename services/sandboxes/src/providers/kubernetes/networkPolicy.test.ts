import { PREVIEW_PORTS } from './kubernetesProvider.js';
import { CLUSTER_INTERNAL_RANGES, sandboxNetworkPolicy } from './networkPolicy.js';
import { buildSandboxManifests } from './podManifest.js';

const policy = sandboxNetworkPolicy({ namespace: 'ars-sandboxes' });
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

describe('egress to the internet and DNS, never to cluster-internal addresses', () => {
  test('DNS only to kube-dns, on port 53', () => {
    const dns = spec.egress?.[0];
    expect(dns?.to?.[0]?.podSelector?.matchLabels).toEqual({ 'k8s-app': 'kube-dns' });
    expect(dns?.ports?.map((port) => `${port.protocol}/${String(port.port)}`)).toEqual(['UDP/53', 'TCP/53']);
  });
  test('every address but the private, link-local (metadata), shared and loopback ranges', () => {
    const internet = spec.egress?.[1];
    expect(internet?.ports).toBeUndefined();
    expect(internet?.to).toEqual([
      { ipBlock: { cidr: '0.0.0.0/0', except: [...CLUSTER_INTERNAL_RANGES.ipv4] } },
      { ipBlock: { cidr: '::/0', except: [...CLUSTER_INTERNAL_RANGES.ipv6] } },
    ]);
    expect(CLUSTER_INTERNAL_RANGES.ipv4).toEqual(expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16']));
    expect(spec.egress).toHaveLength(2);
  });
  test('an internal destination is reachable only when named (a source host inside the cluster)', () => {
    const peer = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'git' } } };
    expect(sandboxNetworkPolicy({ namespace: 'n', allowEgressTo: [peer] }).spec?.egress?.[2]).toEqual({ to: [peer] });
  });
});
