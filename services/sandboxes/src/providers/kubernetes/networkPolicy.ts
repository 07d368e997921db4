// The network intent of Kubernetes sandboxes, as one NetworkPolicy for the sandbox namespace (pure:
// no I/O; applied once with the deployment, not per Pod: every sandbox Pod carries the labels it
// selects). A sandbox reaches DNS, the sandboxes service's model gateway port (its only way to a
// model: the company's keys are never in a Pod), and the internet its clone and install steps need,
// never the cluster's own addresses (the services, MongoDB, Kafka, Redis, the API server, the cloud
// metadata endpoint) nor the model providers' published API addresses; nothing reaches a sandbox but
// its preview port range.
import type { V1NetworkPolicy, V1NetworkPolicyPeer } from '@kubernetes/client-node';
import { PREVIEW_PORTS } from './kubernetesProvider.js';
import { MANAGED_BY } from './podManifest.js';
import { DEFAULT_MODEL_GATEWAY_PORT } from './settings.js';

export const NETWORK_POLICY_NAME = 'ars-sandboxes';

/** Private, link-local (cloud metadata), shared and loopback ranges: where a cluster's own services live. */
export const CLUSTER_INTERNAL_RANGES = {
  ipv4: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '127.0.0.0/8'],
  ipv6: ['fc00::/7', 'fe80::/10', '::1/128'],
} as const;

/**
 * The model providers' API addresses where they publish them, kept out of a sandbox's reach: a CLI
 * calls its model through the gateway, never the provider directly. Anthropic publishes the addresses
 * api.anthropic.com answers on (https://platform.claude.com/docs/en/api/ip-addresses); OpenAI does not
 * (api.openai.com is on a CDN's addresses, shared with much of the internet), so it stays reachable,
 * but without a key: none is ever in a Pod.
 */
export const MODEL_PROVIDER_RANGES = {
  ipv4: ['160.79.104.0/23'],
  ipv6: ['2607:6bc0::/48'],
} as const;

/** Where the sandboxes service's model gateway listens for the Pods: its Pods (namespace and labels) and port. */
export interface ModelGatewayPeer {
  /** The sandboxes service's namespace (the chart's release namespace); null: any namespace, its Pods' labels alone select. */
  namespace: string | null;
  /** Labels every Pod of the sandboxes service carries. */
  podLabels: Record<string, string>;
  /** `MODEL_GATEWAY_PORT`. */
  port: number;
}

/** Without a release to name: the sandboxes service's Pods by the labels the chart gives them, in any namespace. */
export const DEFAULT_MODEL_GATEWAY_PEER: ModelGatewayPeer = {
  namespace: null,
  podLabels: { 'app.kubernetes.io/part-of': 'agent-run-service', 'app.kubernetes.io/component': 'sandboxes' },
  port: DEFAULT_MODEL_GATEWAY_PORT,
};

type Ranges = { ipv4: readonly string[]; ipv6: readonly string[] };

export interface SandboxNetworkPolicyInput {
  namespace: string;
  /** The model gateway the Pods call (default DEFAULT_MODEL_GATEWAY_PEER; the chart names its release's). */
  modelGateway?: ModelGatewayPeer;
  /** Who may open a sandbox's preview port (default: anyone the cluster routes there: the service, a preview proxy). */
  previewFrom?: V1NetworkPolicyPeer[];
  /** Internal destinations a sandbox must reach after all (a source host inside the cluster, for the clone). */
  allowEgressTo?: V1NetworkPolicyPeer[];
  /** The ranges kept out of reach (default CLUSTER_INTERNAL_RANGES): add the cluster's Pod and Service CIDRs if they are public. */
  internalRanges?: Ranges;
  /** The model providers' addresses kept out of reach too (default MODEL_PROVIDER_RANGES). */
  modelProviderRanges?: Ranges;
}

export function sandboxNetworkPolicy(input: SandboxNetworkPolicyInput): V1NetworkPolicy {
  const internal = input.internalRanges ?? CLUSTER_INTERNAL_RANGES;
  const providers = input.modelProviderRanges ?? MODEL_PROVIDER_RANGES;
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
        // The one way to a model: the sandboxes service's gateway port, in the cluster's own ranges the next rule keeps out.
        {
          to: [
            {
              namespaceSelector: gateway.namespace === null ? {} : { matchLabels: { 'kubernetes.io/metadata.name': gateway.namespace } },
              podSelector: { matchLabels: { ...gateway.podLabels } },
            },
          ],
          ports: [{ protocol: 'TCP', port: gateway.port }],
        },
        // The internet, for what runs in the Pod with its network: the init container's clone (the source
        // host, GitHub…), install steps (package registries), dev servers. A NetworkPolicy is the Pod's,
        // not a container's, so the agent's turn has it too.
        {
          to: [
            { ipBlock: { cidr: '0.0.0.0/0', except: [...internal.ipv4, ...providers.ipv4] } },
            { ipBlock: { cidr: '::/0', except: [...internal.ipv6, ...providers.ipv6] } },
          ],
        },
        ...(input.allowEgressTo !== undefined && input.allowEgressTo.length > 0 ? [{ to: input.allowEgressTo }] : []),
      ],
    },
  };
}
