// The network intent of Kubernetes sandboxes, as one NetworkPolicy for the sandbox namespace (pure:
// no I/O; applied once with the deployment, not per Pod: every sandbox Pod carries the labels it
// selects). A sandbox Pod reaches the sandboxes service's Pods on two ports and nothing else: the
// model gateway (its only way to a model: the company's keys are never in a Pod) and the egress
// proxy (its only way to the internet: the clone's host, then what the phase's allowlist names, each
// request under a grant bound to the Pod). No DNS (the proxy resolves names; a resolver that recurses
// out would be a channel of its own) unless some host is reached directly (K8S_NO_PROXY), no route
// to the cluster's services, MongoDB, Kafka, Redis, the API server or cloud metadata. Nothing reaches
// a sandbox but its preview port range.
import type { V1NetworkPolicy, V1NetworkPolicyPeer } from '@kubernetes/client-node';
import { PREVIEW_PORTS } from './kubernetesProvider.js';
import { MANAGED_BY } from './podManifest.js';
import { DEFAULT_EGRESS_PROXY_PORT, DEFAULT_MODEL_GATEWAY_PORT } from './settings.js';

export const NETWORK_POLICY_NAME = 'ars-sandboxes';

/** Where the sandboxes service listens for the Pods: its Pods (namespace and labels), the model gateway's port and the egress proxy's. */
export interface ModelGatewayPeer {
  /** The sandboxes service's namespace (the chart's release namespace); null: any namespace, its Pods' labels alone select. */
  namespace: string | null;
  /** Labels every Pod of the sandboxes service carries. */
  podLabels: Record<string, string>;
  /** `MODEL_GATEWAY_PORT`. */
  port: number;
  /** `EGRESS_PROXY_PORT`. */
  egressProxyPort: number;
}

/** Without a release to name: the sandboxes service's Pods by the labels the chart gives them, in any namespace. */
export const DEFAULT_MODEL_GATEWAY_PEER: ModelGatewayPeer = {
  namespace: null,
  podLabels: { 'app.kubernetes.io/part-of': 'agent-run-service', 'app.kubernetes.io/component': 'sandboxes' },
  port: DEFAULT_MODEL_GATEWAY_PORT,
  egressProxyPort: DEFAULT_EGRESS_PROXY_PORT,
};

export interface SandboxNetworkPolicyInput {
  namespace: string;
  /** The model gateway the Pods call (default DEFAULT_MODEL_GATEWAY_PEER; the chart names its release's). */
  modelGateway?: ModelGatewayPeer;
  /** Who may open a sandbox's preview port (default: anyone the cluster routes there: the service, a preview proxy). */
  previewFrom?: V1NetworkPolicyPeer[];
  /** Destinations a sandbox reaches directly, not through the egress proxy (the K8S_NO_PROXY hosts: a source host inside the cluster). */
  allowEgressTo?: V1NetworkPolicyPeer[];
  /** The cluster's DNS (kube-dns, port 53): only for the K8S_NO_PROXY hosts' names. Default false. */
  dns?: boolean;
}

export function sandboxNetworkPolicy(input: SandboxNetworkPolicyInput): V1NetworkPolicy {
  const gateway = input.modelGateway ?? DEFAULT_MODEL_GATEWAY_PEER;
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
        // The sandboxes service's Pods: the model gateway, and the egress proxy (every way out).
        {
          to: [
            {
              namespaceSelector: gateway.namespace === null ? {} : { matchLabels: { 'kubernetes.io/metadata.name': gateway.namespace } },
              podSelector: { matchLabels: { ...gateway.podLabels } },
            },
          ],
          ports: [
            { protocol: 'TCP', port: gateway.port },
            { protocol: 'TCP', port: gateway.egressProxyPort },
          ],
        },
        ...(input.dns === true
          ? [
              {
                to: [
                  {
                    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
                    podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
                  },
                ],
                ports: [
                  { protocol: 'UDP', port: 53 },
                  { protocol: 'TCP', port: 53 },
                ],
              },
            ]
          : []),
        ...(input.allowEgressTo !== undefined && input.allowEgressTo.length > 0 ? [{ to: input.allowEgressTo }] : []),
      ],
    },
  };
}
