// The metrics listener in the chart: every service serves /metrics on a port of its own (METRICS_PORT,
// the container port `metrics`, where Prometheus's annotations point), never on its API port; the
// scrapers of networkPolicy.metricsFrom reach that port alone, and nobody else reaches it.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CHART_DIR, ofKind, profileFile, PROFILES, renderProfile, type Manifest } from './render.js';

interface Port {
  protocol?: string;
  port?: number | string;
}
interface Rule {
  from?: unknown[];
  ports?: Port[];
}
type NetworkPolicy = Manifest & { spec: { podSelector: { matchLabels: Record<string, string> }; ingress?: Rule[] } };
interface Container {
  env?: { name: string; value?: string }[];
  ports?: { name: string; containerPort: number; protocol: string }[];
}
type Deployment = Manifest & {
  spec: { template: { metadata: { annotations?: Record<string, string> }; spec: { containers: Container[] } } };
};

const values = parse(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8')) as { metrics: { port: number }; services: Record<string, { port: number }> };
const METRICS_PORT = values.metrics.port;
const component = (manifest: Manifest | NetworkPolicy): string | undefined => manifest.metadata.labels?.['app.kubernetes.io/component'];
/** A service's own NetworkPolicy (not the topic Job's or the sandbox namespace's). */
const isServicePolicy = (policy: NetworkPolicy): boolean => {
  const name = component(policy);
  return name !== undefined && name in values.services;
};

describe.each(PROFILES)('%s: every service serves /metrics on the metrics port, which only the metricsFrom scrapers reach', (profile) => {
  const documents = renderProfile(profile);
  const deployments = ofKind<Deployment>(documents, 'Deployment');

  it('each Deployment: METRICS_HOST 0.0.0.0 and METRICS_PORT, a container port named metrics, the Prometheus port annotation on it', () => {
    expect(deployments.length).toBeGreaterThan(0);
    for (const deployment of deployments) {
      const container = deployment.spec.template.spec.containers[0];
      const env = Object.fromEntries((container?.env ?? []).map((variable) => [variable.name, variable.value]));
      expect({ service: component(deployment), host: env.METRICS_HOST, port: env.METRICS_PORT }).toEqual({
        service: component(deployment),
        host: '0.0.0.0',
        port: String(METRICS_PORT),
      });
      expect(container?.ports).toContainEqual({ name: 'metrics', containerPort: METRICS_PORT, protocol: 'TCP' });
      expect(container?.ports?.find((port) => port.name === 'http')?.containerPort).not.toBe(METRICS_PORT);
      const annotations = deployment.spec.template.metadata.annotations ?? {};
      if (annotations['prometheus.io/scrape'] === 'true') expect(annotations['prometheus.io/port']).toBe(String(METRICS_PORT));
    }
  });

  it("no Service exposes the metrics port: Prometheus scrapes each Pod, and a Service's clients never reach it", () => {
    const services = ofKind<Manifest & { spec: { ports: { port: number; targetPort?: number | string }[] } }>(documents, 'Service');
    const exposed = services.flatMap((service) => service.spec.ports.filter((port) => port.port === METRICS_PORT || port.targetPort === 'metrics'));
    expect(exposed).toEqual([]);
  });

  it('each NetworkPolicy names the metrics port in the metricsFrom rule alone, and that rule names no other port', () => {
    const policies = ofKind<NetworkPolicy>(documents, 'NetworkPolicy').filter(isServicePolicy);
    for (const policy of policies) {
      for (const rule of policy.spec.ingress ?? []) {
        const ports = (rule.ports ?? []).map((port) => port.port);
        if (ports.includes(METRICS_PORT)) expect({ policy: policy.metadata.name, ports }).toEqual({ policy: policy.metadata.name, ports: [METRICS_PORT] });
      }
    }
  });
});

describe('with metricsFrom set (the production profile), the scrapers are admitted to the metrics port of every service, never to its API port', () => {
  const scrapers = (parse(readFileSync(profileFile('production'), 'utf8')) as { networkPolicy: { metricsFrom: unknown[] } }).networkPolicy.metricsFrom;
  const documents = renderProfile('production');
  const policies = ofKind<NetworkPolicy>(documents, 'NetworkPolicy').filter(isServicePolicy);

  it.each(Object.keys(values.services))('%s', (service) => {
    const policy = policies.find((candidate) => component(candidate) === service);
    expect(policy).toBeDefined();
    const admitsScrapers = (rule: Rule): boolean => JSON.stringify(rule.from ?? []) === JSON.stringify(scrapers);
    expect(scrapers.length).toBeGreaterThan(0);
    expect((policy?.spec.ingress ?? []).filter(admitsScrapers)).toEqual([{ from: scrapers, ports: [{ protocol: 'TCP', port: METRICS_PORT }] }]);
    const apiPort = values.services[service]?.port;
    const apiRules = (policy?.spec.ingress ?? []).filter((rule) => (rule.ports ?? []).some((port) => port.port === apiPort));
    expect(apiRules.length).toBeGreaterThan(0);
    for (const rule of apiRules) expect(admitsScrapers(rule)).toBe(false);
  });
});
