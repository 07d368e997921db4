// The checks the profiles pass, failing on what they are there to catch: a manifest with an unknown
// field (from the chart itself, edited), a wrong type, a missing required value, a misspelt value,
// and each policy broken.
import { describe, expect, it } from '@jest/globals';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { modelProblems, unknownFieldProblems } from './manifests.js';
import { ALL_POLICIES, valuesSchemaProblems } from './policy.js';
import { CHART_DIR, mergedValues, profileFile, render, renderOrThrow, renderProfile, type Manifest } from './render.js';

const minimal = [profileFile('minimal')];
const copy = <T>(value: T): T => structuredClone(value);
const deploymentOf = (manifests: Manifest[], component: string): Manifest & { spec: Record<string, never> } => {
  const found = manifests.find((m) => m.kind === 'Deployment' && m.metadata.labels?.['app.kubernetes.io/component'] === component);
  if (!found) throw new Error(`no Deployment of ${component}`);
  return found as Manifest & { spec: Record<string, never> };
};

describe('a manifest with an unknown field fails the strict check', () => {
  it('the chart with a misspelt field in its Deployment template renders, and the tsc check names the field and the manifest', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ars-broken-chart-'));
    try {
      cpSync(CHART_DIR, dir, { recursive: true });
      const template = join(dir, 'templates/deployment.yaml');
      writeFileSync(template, readFileSync(template, 'utf8').replace('          imagePullPolicy:', '          imagePullPolicyy:'));
      const manifests = renderOrThrow({ chartDir: dir, valuesFiles: minimal }).map((d) => d.manifest);
      const problems = unknownFieldProblems(manifests);
      expect(problems).toHaveLength(7);
      expect(problems[0]).toMatch(/^Deployment\/ars-agent-run-service-\S+: error TS2353: .*'"imagePullPolicyy"' does not exist in type 'IContainer'/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a misspelt field deep in a rendered manifest (spec.selectr of a PDB) fails it, where kubernetes-models' validate() lets it through", async () => {
    const pdb = renderProfile('production')
      .map((d) => d.manifest)
      .find((m) => m.kind === 'PodDisruptionBudget') as Manifest & { spec: Record<string, unknown> };
    const broken = copy(pdb);
    broken.spec.selectr = broken.spec.selector;
    expect(unknownFieldProblems([broken])).toEqual([
      `PodDisruptionBudget/${pdb.metadata.name}: error TS2353: Object literal may only specify known properties, and '"selectr"' does not exist in type 'IPodDisruptionBudgetSpec'.`,
    ]);
    expect(await modelProblems([broken])).toEqual([]);
  });
});

describe("a manifest with a wrong type or a missing required field fails kubernetes-models' validate()", () => {
  it('replicas "two", and an httpGet probe without its port', async () => {
    const deployment = deploymentOf(
      renderProfile('minimal').map((d) => d.manifest),
      'runs',
    );
    const wrongType = copy(deployment) as unknown as { spec: { replicas: unknown } } & Manifest;
    wrongType.spec.replicas = 'two';
    const noPort = copy(deployment) as unknown as {
      spec: { template: { spec: { containers: { livenessProbe: { httpGet: Record<string, unknown> } }[] } } };
    } & Manifest;
    delete noPort.spec.template.spec.containers[0]?.livenessProbe.httpGet.port;
    const problems = await modelProblems([wrongType, noPort]);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^Deployment\/ars-agent-run-service-runs: .*replicas.*must be integer/);
    expect(problems[1]).toMatch(/^Deployment\/ars-agent-run-service-runs: .*httpGet.*must have required property port/);
  });
});

describe('a missing required value fails the render (templates/validate.yaml, fail closed)', () => {
  it.each([
    ['kafka.brokers', { kafka: { brokers: [] } }, 'kafka.brokers is required'],
    ['mongo.existingSecret', { mongo: { existingSecret: '' } }, 'mongo.existingSecret is required'],
    ['secrets.existingSecret', { secrets: { existingSecret: '' } }, 'secrets.existingSecret is required'],
    ['image.tag latest', { image: { tag: 'latest' } }, 'image.tag must not be latest'],
    ['sandboxes.kubernetes.image', { sandboxes: { kubernetes: { image: '' } } }, 'sandboxes.kubernetes.image is required'],
    [
      'a callee disabled',
      { services: { catalog: { enabled: false } } },
      'services.catalog.enabled is required: services.automations-engine calls it (CATALOG_URL)',
    ],
    ['gateway.publicBaseUrl in production', { environment: 'production', github: { appId: '1' } }, 'gateway.publicBaseUrl is required in production'],
    [
      'a sign-in method in production',
      { environment: 'production', gateway: { publicBaseUrl: 'https://x.example' } },
      'gateway.oidc.issuer is required in production',
    ],
    [
      'an https issuer in production',
      {
        environment: 'production',
        gateway: { publicBaseUrl: 'https://x.example', oidc: { issuer: 'http://login.x.example', clientId: 'c', allowedEmailDomains: 'x.example' } },
      },
      'gateway.oidc.issuer must be an https:// URL in production',
    ],
    [
      'github.appId in production',
      {
        environment: 'production',
        gateway: { publicBaseUrl: 'https://x.example', oidc: { issuer: 'https://login.x.example', clientId: 'c', allowAny: true } },
      },
      'github.appId is required in production',
    ],
  ])('%s', (_what, values, message) => {
    const result = render({ valuesFiles: minimal, values });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.error).toMatch(
        new RegExp(`^execution error at \\(agent-run-service/templates/validate\\.yaml:\\d+:\\d+\\): ${message.replace(/[.()]/g, '\\$&')}`),
      );
  });

  it('the production profile without its PUBLIC_BASE_URL value fails', () => {
    const result = render({ valuesFiles: [profileFile('production')], values: { gateway: { publicBaseUrl: '' } } });
    expect(result).toEqual({ ok: false, error: expect.stringContaining('gateway.publicBaseUrl is required in production') });
  });
});

describe('a misspelt or wrongly typed value fails values.schema.json', () => {
  it.each([
    ['a misspelt service key', { services: { gateway: { replicas: 3 } } }, '/services/gateway must NOT have additional properties: replicas'],
    ['an unknown service', { services: { frontend: { enabled: true } } }, '/services must NOT have additional properties: frontend'],
    ['a misspelt top-level key', { kafak: { brokers: ['k:9092'] } }, '/ must NOT have additional properties: kafak'],
    ['a port as a string', { services: { runs: { port: '8082' } } }, '/services/runs/port must be integer'],
  ])('%s', (_what, values, problem) => {
    expect(valuesSchemaProblems(mergedValues({ valuesFiles: minimal, values }))).toContain(problem);
  });
});

describe('each policy fails on the manifest that breaks it', () => {
  const manifests = renderProfile('production').map((d) => d.manifest);
  type Pod = { spec: { replicas?: number; template: { spec: { securityContext: Record<string, unknown>; containers: Record<string, unknown>[] } } } };
  const broken = (edit: (pod: Pod) => void): Manifest[] => {
    const changed = copy(manifests);
    edit(deploymentOf(changed, 'catalog') as unknown as Pod);
    return changed;
  };
  const container = (pod: Pod): Record<string, unknown> => pod.spec.template.spec.containers[0] as Record<string, unknown>;

  const cases: [keyof typeof ALL_POLICIES, (pod: Pod) => void, string][] = [
    ['latestTagProblems', (pod) => void (container(pod).image = 'registry.example.com/ars:latest'), 'is not pinned'],
    ['latestTagProblems', (pod) => void (container(pod).image = 'registry.example.com/ars'), 'is not pinned'],
    ['resourceProblems', (pod) => void delete container(pod).resources, 'resources must set'],
    ['securityProblems', (pod) => void (pod.spec.template.spec.securityContext.runAsNonRoot = false), 'runAsNonRoot'],
    ['securityProblems', (pod) => void ((container(pod).securityContext as Record<string, unknown>).readOnlyRootFilesystem = false), 'readOnlyRootFilesystem'],
    ['probeProblems', (pod) => void (container(pod).readinessProbe = { httpGet: { path: '/healthz', port: 'http' } }), 'readiness must probe /readyz'],
    ['probeProblems', (pod) => void delete container(pod).startupProbe, 'a startup probe is required'],
    ['pdbProblems', (pod) => void (pod.spec.replicas = 1), 'exists for 1 replica'],
  ];
  it.each(cases)('%s', (policy, edit, problem) => {
    expect(ALL_POLICIES[policy](manifests)).toEqual([]);
    expect(ALL_POLICIES[policy](broken(edit))).toEqual([expect.stringContaining(problem)]);
  });

  it('pdbProblems: minAvailable equal to the replicas', () => {
    const changed = copy(manifests);
    const pdb = changed.find((m) => m.kind === 'PodDisruptionBudget' && m.metadata.name.endsWith('-catalog')) as Manifest & { spec: Record<string, unknown> };
    delete pdb.spec.maxUnavailable;
    pdb.spec.minAvailable = 2;
    expect(pdbProblems(changed)).toEqual([`PodDisruptionBudget/${pdb.metadata.name}: minAvailable 2 is not below the 2 replicas`]);
  });
});

const { pdbProblems } = ALL_POLICIES;
