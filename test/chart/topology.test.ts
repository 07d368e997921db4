// What the chart takes from the code, checked against the code: the topics (topicProvisioning()),
// who calls whom (the *_URL variables of each service's configuration) in the NetworkPolicies, and
// the sandbox namespace's NetworkPolicy (sandboxNetworkPolicy() of the kubernetes provider).
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
type NetworkPolicy = Manifest & {
  spec: { podSelector: { matchLabels: Record<string, string> }; ingress?: { from?: Peer[] }[]; egress?: { to?: Peer[] }[] };
};
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

describe("the sandboxes' agent Pods reach none of the services", () => {
  const SANDBOX_POD_LABELS: Record<string, string> = { 'app.kubernetes.io/name': 'ars-sandbox', 'app.kubernetes.io/managed-by': 'agent-run-service' };
  const admits = (peer: Peer): boolean =>
    peer.ipBlock !== undefined || Object.entries(peer.podSelector?.matchLabels ?? {}).every(([k, v]) => SANDBOX_POD_LABELS[k] === v);

  it.each(PROFILES)('%s: every service NetworkPolicy admits only peers a sandbox Pod does not match', (profile) => {
    const services = ofKind<NetworkPolicy>(renderProfile(profile), 'NetworkPolicy').filter((p) => SERVICES.includes(component(p) ?? ''));
    expect(services).toHaveLength(SERVICES.length);
    for (const policy of services) {
      for (const rule of policy.spec.ingress ?? []) {
        expect({ policy: policy.metadata.name, openToAll: rule.from === undefined }).toEqual({ policy: policy.metadata.name, openToAll: false });
        expect({ policy: policy.metadata.name, admitted: (rule.from ?? []).filter(admits) }).toEqual({ policy: policy.metadata.name, admitted: [] });
      }
    }
  });

  it("the sandbox namespace's NetworkPolicy is the kubernetes provider's sandboxNetworkPolicy()", () => {
    const rendered = ofKind<NetworkPolicy>(renderProfile('production'), 'NetworkPolicy').find((p) => p.metadata.namespace === 'ars-sandboxes');
    expect(rendered).toEqual(JSON.parse(JSON.stringify(sandboxNetworkPolicy({ namespace: 'ars-sandboxes' }))));
  });
});
