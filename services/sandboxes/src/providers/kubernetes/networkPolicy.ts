// The network intent of Kubernetes sandboxes, as one NetworkPolicy for the sandbox namespace (pure:
// no I/O; applied once with the deployment, not per Pod: every sandbox Pod carries the labels it
// selects). The same rules as the local provider's slirp4netns: a sandbox reaches the internet and
// DNS, never the cluster's own addresses (the services, MongoDB, Kafka, Redis, the API server, the
// cloud metadata endpoint); nothing reaches a sandbox but its preview port range.
import type { V1NetworkPolicy, V1NetworkPolicyPeer } from '@kubernetes/client-node';
import { PREVIEW_PORTS } from './kubernetesProvider.js';
import { MANAGED_BY } from './podManifest.js';

export const NETWORK_POLICY_NAME = 'ars-sandboxes';

/** Private, link-local (cloud metadata), shared and loopback ranges: where a cluster's own services live. */
export const CLUSTER_INTERNAL_RANGES = {
  ipv4: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '127.0.0.0/8'],
  ipv6: ['fc00::/7', 'fe80::/10', '::1/128'],
} as const;

export interface SandboxNetworkPolicyInput {
  namespace: string;
  /** Who may open a sandbox's preview port (default: anyone the cluster routes there: the service, a preview proxy). */
  previewFrom?: V1NetworkPolicyPeer[];
  /** Internal destinations a sandbox must reach after all (a source host inside the cluster, for the clone). */
  allowEgressTo?: V1NetworkPolicyPeer[];
  /** The ranges kept out of reach (default CLUSTER_INTERNAL_RANGES): add the cluster's Pod and Service CIDRs if they are public. */
  internalRanges?: { ipv4: readonly string[]; ipv6: readonly string[] };
}

export function sandboxNetworkPolicy(input: SandboxNetworkPolicyInput): V1NetworkPolicy {
  const internal = input.internalRanges ?? CLUSTER_INTERNAL_RANGES;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: NETWORK_POLICY_NAME, namespace: input.namespace, labels: { 'app.kubernetes.io/managed-by': MANAGED_BY } },
    spec: {
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'ars-sandbox', 'app.kubernetes.io/managed-by': MANAGED_BY } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        {
          ...(input.previewFrom !== undefined ? { from: input.previewFrom } : {}),
          ports: [{ protocol: 'TCP', port: PREVIEW_PORTS.min, endPort: PREVIEW_PORTS.max }],
        },
      ],
      egress: [
        // Names resolve through the cluster's DNS (and only DNS is allowed to it).
        {
          to: [
            { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } },
          ],
          ports: [
            { protocol: 'UDP', port: 53 },
            { protocol: 'TCP', port: 53 },
          ],
        },
        {
          to: [{ ipBlock: { cidr: '0.0.0.0/0', except: [...internal.ipv4] } }, { ipBlock: { cidr: '::/0', except: [...internal.ipv6] } }],
        },
        ...(input.allowEgressTo !== undefined && input.allowEgressTo.length > 0 ? [{ to: input.allowEgressTo }] : []),
      ],
    },
  };
}
