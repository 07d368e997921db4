// What the chart takes from the code, checked against the code: the topics (topicProvisioning()),
// who calls whom (the *_URL variables of each service's configuration) in the NetworkPolicies, the
// sandbox namespace's NetworkPolicy (sandboxNetworkPolicy() of the kubernetes provider), and the
// model gateway port: the sandbox Pods' only way into the release.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { topicProvisioning } from '@ars/bus';
import { automationsEngineConfigSchema } from '@ars/automations-engine/config';
import { catalogConfigSchema } from '@ars/catalog/config';
import { gatewayConfigSchema } from '@ars/gateway/config';
import { mcpRegistryConfigSchema } from '@ars/mcp-registry/config';
import { prReviewConfigSchema } from '@ars/pr-review/config';
import { runsConfigSchema } from '@ars/runs/config';
import { sandboxesConfigSchema } from '@ars/sandboxes/config';
import { sandboxNetworkPolicy } from '@ars/sandboxes/kubernetes-network-policy';
import { CHART_DIR, ofKind, PROFILES, renderProfile, type Manifest } from './render.js';

const SCHEMAS: Record<string, Record<string, unknown>> = {
  gateway: gatewayConfigSchema,
  catalog: catalogConfigSchema,
  runs: runsConfigSchema,
  sandboxes: sandboxesConfigSchema,
  'automations-engine': automationsEngineConfigSchema,
  'pr-review': prReviewConfigSchema,
  'mcp-registry': mcpRegistryConfigSchema,
};
const SERVICES = Object.keys(SCHEMAS);
const urlVariable = (service: string): string => `${service.toUpperCase().replace(/-/g, '_')}_URL`;
/** The services whose configuration has the callee's URL: its callers, by the code. */
const callersOf = (callee: string): string[] => SERVICES.filter((caller) => urlVariable(callee) in (SCHEMAS[caller] ?? {})).sort();

interface Peer {
  podSelector?: { matchLabels?: Record<string, string> };
  namespaceSelector?: { matchLabels?: Record<string, string> };
  ipBlock?: unknown;
}
interface Port {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}
type NetworkPolicy = Manifest & {
  spec: { podSelector: { matchLabels: Record<string, string> }; ingress?: { from?: Peer[]; ports?: Port[] }[]; egress?: { to?: Peer[]; ports?: Port[] }[] };
};
/** The chart's default MODEL_GATEWAY_PORT (values.yaml sandboxes.kubernetes.modelGateway.port). */
const MODEL_GATEWAY_PORT = 8090;
const EGRESS_PROXY_PORT = 8091;
const component = (np: NetworkPolicy): string | undefined => np.spec.podSelector.matchLabels['app.kubernetes.io/component'];

describe("the topic Job creates exactly the bus's topicProvisioning() list", () => {
  it('templates/_topics.tpl holds every topic and .dlq with its partitions', () => {
    const partial = readFileSync(join(CHART_DIR, 'templates/_topics.tpl'), 'utf8');
    const body = /\{\{- define "ars.topics" -\}\}\n([\s\S]*?)\{\{- end -\}\}/.exec(partial)?.[1] ?? '';
    // On a mismatch, regenerate the partial's body from topicProvisioning() (charts/agent-run-service/README.md, Topics).
    expect(parse(body)).toEqual(topicProvisioning());
  });

  it('the rendered Job lists them, one line each', () => {
    const job = ofKind<Manifest & { spec: { template: { spec: { containers: { args: string[] }[] } } } }>(renderProfile('minimal'), 'Job')[0];
    const script = job?.spec.template.spec.containers[0]?.args[0] ?? '';
    const lines = /<<'TOPICS'\n([\s\S]*?)\nTOPICS/.exec(script)?.[1]?.split('\n') ?? [];
    expect(lines).toEqual(topicProvisioning().map((t) => `${t.name} ${t.partitions}`));
  });
});

describe('an internal service admits exactly the services that call it (their *_URL in its configuration)', () => {
  const policies = ofKind<NetworkPolicy>(renderProfile('production'), 'NetworkPolicy');
  it.each(SERVICES.filter((s) => s !== 'gateway'))('%s', (callee) => {
    const policy = policies.find((p) => component(p) === callee);
    const admitted = (policy?.spec.ingress ?? [])
      .flatMap((rule) => rule.from ?? [])
      .filter((peer) => !peer.namespaceSelector)
      .map((peer) => peer.podSelector?.matchLabels?.['app.kubernetes.io/component'])
      .sort();
    expect(admitted).toEqual(callersOf(callee));
  });

  it.each(SERVICES)('%s may reach each service it calls', (caller) => {
    const policy = policies.find((p) => component(p) === caller);
    const reached = (policy?.spec.egress ?? [])
      .flatMap((rule) => rule.to ?? [])
      .map((peer) => peer.podSelector?.matchLabels?.['app.kubernetes.io/component'])
      .filter((c): c is string => c !== undefined)
      .sort();
    expect(reached).toEqual(SERVICES.filter((callee) => callersOf(callee).includes(caller)).sort());
  });
});

describe("the sandboxes' agent Pods reach none of the services, only the sandboxes service's model gateway port", () => {
  const SANDBOX_POD_LABELS: Record<string, string> = { 'app.kubernetes.io/name': 'ars-sandbox', 'app.kubernetes.io/managed-by': 'agent-run-service' };
  const admits = (peer: Peer): boolean =>
    peer.ipBlock !== undefined || Object.entries(peer.podSelector?.matchLabels ?? {}).every(([k, v]) => SANDBOX_POD_LABELS[k] === v);
  /** The one rule that may admit sandbox Pods: the sandboxes service's, from the sandbox namespace's agent Pods, on the model gateway port. */
  const gatewayRule = {
    from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ars-sandboxes' } }, podSelector: { matchLabels: SANDBOX_POD_LABELS } }],
    ports: [
      { protocol: 'TCP', port: MODEL_GATEWAY_PORT },
      { protocol: 'TCP', port: EGRESS_PROXY_PORT },
    ],
  };

  it.each(PROFILES)('%s: every service NetworkPolicy admits only peers a sandbox Pod does not match, but the model gateway rule', (profile) => {
    const services = ofKind<NetworkPolicy>(renderProfile(profile), 'NetworkPolicy').filter((p) => SERVICES.includes(component(p) ?? ''));
    expect(services).toHaveLength(SERVICES.length);
    for (const policy of services) {
      for (const rule of policy.spec.ingress ?? []) {
        expect({ policy: policy.metadata.name, openToAll: rule.from === undefined }).toEqual({ policy: policy.metadata.name, openToAll: false });
        if (component(policy) === 'sandboxes' && JSON.stringify(rule) === JSON.stringify(gatewayRule)) continue;
        expect({ policy: policy.metadata.name, admitted: (rule.from ?? []).filter(admits) }).toEqual({ policy: policy.metadata.name, admitted: [] });
      }
    }
  });

  it.each(PROFILES)(
    '%s: the model gateway and egress proxy ports are named by that rule alone: no caller, scraper or ingress controller reaches them',
    (profile) => {
      const policies = ofKind<NetworkPolicy>(renderProfile(profile), 'NetworkPolicy').filter((p) => SERVICES.includes(component(p) ?? ''));
      const naming = policies.flatMap((policy) =>
        (policy.spec.ingress ?? [])
          .filter((rule) => (rule.ports ?? []).some((port) => port.port === MODEL_GATEWAY_PORT || port.port === EGRESS_PROXY_PORT))
          .map((rule) => ({ policy: component(policy), rule })),
      );
      expect(naming).toEqual([{ policy: 'sandboxes', rule: gatewayRule }]);
    },
  );

  it("the sandboxes Deployment listens for its Pods on its own Pod IP: MODEL_GATEWAY_POD_IP from status.podIP, a `model` port; no Service spreads a run's calls over replicas", () => {
    const documents = renderProfile('production');
    const deployment = ofKind<Manifest & { spec: { template: { spec: { containers: { env: unknown[]; ports: unknown[] }[] } } } }>(
      documents,
      'Deployment',
    ).find((d) => d.metadata.labels?.['app.kubernetes.io/component'] === 'sandboxes');
    const container = deployment?.spec.template.spec.containers[0];
    expect(container?.env).toEqual(
      expect.arrayContaining([
        { name: 'MODEL_GATEWAY_PORT', value: String(MODEL_GATEWAY_PORT) },
        { name: 'MODEL_GATEWAY_POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      ]),
    );
    expect(container?.ports).toContainEqual({ name: 'model', containerPort: MODEL_GATEWAY_PORT, protocol: 'TCP' });
    expect(container?.ports).toContainEqual({ name: 'egress', containerPort: EGRESS_PROXY_PORT, protocol: 'TCP' });
    expect(container?.env).toContainEqual({ name: 'EGRESS_PROXY_PORT', value: String(EGRESS_PROXY_PORT) });
    const services = ofKind<Manifest & { spec: { ports: { port: number }[] } }>(documents, 'Service');
    expect(services.flatMap((service) => service.spec.ports.map((port) => port.port))).not.toContain(MODEL_GATEWAY_PORT);
    expect(services.flatMap((service) => service.spec.ports.map((port) => port.port))).not.toContain(EGRESS_PROXY_PORT);
  });

  it("the sandbox namespace's NetworkPolicy is the kubernetes provider's sandboxNetworkPolicy(), naming the release's sandboxes Pods as its model gateway", () => {
    const rendered = ofKind<NetworkPolicy>(renderProfile('production'), 'NetworkPolicy').find((p) => p.metadata.namespace === 'ars-sandboxes');
    const modelGateway = {
      namespace: 'ars',
      podLabels: { 'app.kubernetes.io/name': 'agent-run-service', 'app.kubernetes.io/instance': 'ars', 'app.kubernetes.io/component': 'sandboxes' },
      port: MODEL_GATEWAY_PORT,
      egressProxyPort: EGRESS_PROXY_PORT,
    };
    expect(rendered).toEqual(JSON.parse(JSON.stringify(sandboxNetworkPolicy({ namespace: 'ars-sandboxes', modelGateway }))));
  });
});
