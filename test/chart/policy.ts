// The chart's policies on rendered manifests: each function returns the violations (empty: none),
// so a test can show a broken manifest failing the same check the profiles pass.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import type { Manifest } from './render.js';
import { CHART_DIR } from './render.js';

interface Container {
  name: string;
  image?: string;
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
  securityContext?: { runAsNonRoot?: boolean; readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; capabilities?: { drop?: string[] } };
  livenessProbe?: { httpGet?: { path?: string } };
  readinessProbe?: { httpGet?: { path?: string } };
  startupProbe?: { httpGet?: { path?: string } };
}
interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type?: string } };
}
type Workload = Manifest & { spec: { replicas?: number; template: { spec: PodSpec } } };

const workloads = (manifests: readonly Manifest[]): Workload[] => manifests.filter((m): m is Workload => m.kind === 'Deployment' || m.kind === 'Job');

const containersOf = (w: Workload): Container[] => [...(w.spec.template.spec.initContainers ?? []), ...w.spec.template.spec.containers];

/** Every image pinned: a tag other than `latest`, or a digest. */
export function latestTagProblems(manifests: readonly Manifest[]): string[] {
  return workloads(manifests).flatMap((w) =>
    containersOf(w)
      .filter((c) => !c.image || (!c.image.includes('@') && (/:latest$/.test(c.image) || !/:[^/]+$/.test(c.image))))
      .map((c) => `${w.kind}/${w.metadata.name} ${c.name}: image ${JSON.stringify(c.image)} is not pinned (no tag, or latest)`),
  );
}

/** Every container has cpu and memory requests and a memory limit. */
export function resourceProblems(manifests: readonly Manifest[]): string[] {
  return workloads(manifests).flatMap((w) =>
    containersOf(w)
      .filter((c) => !c.resources?.requests?.cpu || !c.resources.requests.memory || !c.resources.limits?.memory)
      .map((c) => `${w.kind}/${w.metadata.name} ${c.name}: resources must set requests.cpu, requests.memory and limits.memory`),
  );
}

/** Non-root, no privilege escalation, read-only root, no capabilities, seccomp RuntimeDefault. */
export function securityProblems(manifests: readonly Manifest[]): string[] {
  return workloads(manifests).flatMap((w) => {
    const pod = w.spec.template.spec.securityContext;
    const problems: string[] = [];
    if (pod?.runAsNonRoot !== true) problems.push(`${w.kind}/${w.metadata.name}: the Pod must set runAsNonRoot: true`);
    if (pod?.seccompProfile?.type !== 'RuntimeDefault') problems.push(`${w.kind}/${w.metadata.name}: the Pod must use seccomp RuntimeDefault`);
    for (const c of containersOf(w)) {
      const s = c.securityContext;
      if (s?.readOnlyRootFilesystem !== true) problems.push(`${w.kind}/${w.metadata.name} ${c.name}: readOnlyRootFilesystem must be true`);
      if (s?.allowPrivilegeEscalation !== false) problems.push(`${w.kind}/${w.metadata.name} ${c.name}: allowPrivilegeEscalation must be false`);
      if (!s?.capabilities?.drop?.includes('ALL')) problems.push(`${w.kind}/${w.metadata.name} ${c.name}: capabilities must drop ALL`);
    }
    return problems;
  });
}

/** Every service container: liveness on /healthz, readiness on /readyz, and a startup probe. */
export function probeProblems(manifests: readonly Manifest[]): string[] {
  return workloads(manifests)
    .filter((w) => w.kind === 'Deployment')
    .flatMap((w) =>
      w.spec.template.spec.containers.flatMap((c) => {
        const problems: string[] = [];
        if (c.livenessProbe?.httpGet?.path !== '/healthz') problems.push(`Deployment/${w.metadata.name} ${c.name}: liveness must probe /healthz`);
        if (c.readinessProbe?.httpGet?.path !== '/readyz') problems.push(`Deployment/${w.metadata.name} ${c.name}: readiness must probe /readyz`);
        if (!c.startupProbe?.httpGet?.path) problems.push(`Deployment/${w.metadata.name} ${c.name}: a startup probe is required`);
        return problems;
      }),
    );
}

/**
 * Each PodDisruptionBudget lets at least one Pod go (minAvailable below the replicas, or
 * maxUnavailable at least 1) and only exists for more than one replica: a drain is never blocked.
 */
export function pdbProblems(manifests: readonly Manifest[]): string[] {
  const problems: string[] = [];
  const hpas = manifests.filter((m) => m.kind === 'HorizontalPodAutoscaler') as (Manifest & {
    spec: { scaleTargetRef: { name: string }; minReplicas?: number };
  })[];
  for (const pdb of manifests.filter((m) => m.kind === 'PodDisruptionBudget') as (Manifest & {
    spec: { minAvailable?: number | string; maxUnavailable?: number | string; selector: { matchLabels: Record<string, string> } };
  })[]) {
    const target = workloads(manifests).find(
      (w) => w.kind === 'Deployment' && Object.entries(pdb.spec.selector.matchLabels).every(([k, v]) => w.metadata.labels?.[k] === v),
    );
    if (!target) {
      problems.push(`PodDisruptionBudget/${pdb.metadata.name}: selects no Deployment`);
      continue;
    }
    const replicas = hpas.find((h) => h.spec.scaleTargetRef.name === target.metadata.name)?.spec.minReplicas ?? target.spec.replicas ?? 1;
    const { minAvailable, maxUnavailable } = pdb.spec;
    if (replicas <= 1) problems.push(`PodDisruptionBudget/${pdb.metadata.name}: exists for ${replicas} replica`);
    if (typeof minAvailable === 'number' && minAvailable >= replicas)
      problems.push(`PodDisruptionBudget/${pdb.metadata.name}: minAvailable ${minAvailable} is not below the ${replicas} replicas`);
    if (typeof maxUnavailable === 'number' && maxUnavailable < 1) problems.push(`PodDisruptionBudget/${pdb.metadata.name}: maxUnavailable must be at least 1`);
    if (minAvailable === undefined && maxUnavailable === undefined)
      problems.push(`PodDisruptionBudget/${pdb.metadata.name}: neither minAvailable nor maxUnavailable`);
  }
  return problems;
}

export const ALL_POLICIES = { latestTagProblems, resourceProblems, securityProblems, probeProblems, pdbProblems };

const compiledSchemas = new Map<string, ValidateFunction>();

/** values.schema.json checked with ajv, as Helm checks it against the merged values: the errors, empty when valid. */
export function valuesSchemaProblems(values: unknown, chartDir: string = CHART_DIR): string[] {
  let validate = compiledSchemas.get(chartDir);
  if (!validate) {
    const schema = JSON.parse(readFileSync(join(chartDir, 'values.schema.json'), 'utf8')) as Record<string, unknown>;
    validate = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(schema);
    compiledSchemas.set(chartDir, validate);
  }
  if (validate(values)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '/'} ${e.message}${e.params && 'additionalProperty' in e.params ? `: ${String(e.params.additionalProperty)}` : ''}`,
  );
}
