import { describe, expect, it } from '@jest/globals';
import { validatePod } from './pod.js';

type Json = Record<string, unknown>;

/** A Pod every rule accepts: two containers and an init container, volumes, env, ports, resources. */
function validPod(): Json {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'sandbox-1', labels: { 'app.kubernetes.io/name': 'ars-sandbox', tier: '' }, annotations: { 'example.com/note': 'anything at all' } },
    spec: {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 10,
      activeDeadlineSeconds: 3600,
      serviceAccountName: 'ars-sandboxes',
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      securityContext: { runAsUser: 1000, runAsGroup: 1000, runAsNonRoot: true },
      imagePullSecrets: [{ name: 'registry' }],
      volumes: [{ name: 'workspace', emptyDir: {} }, { name: 'tmp' }],
      initContainers: [
        {
          name: 'clone',
          image: 'alpine/git:2.47.2',
          env: [{ name: 'CLONE_URL', valueFrom: { secretKeyRef: { name: 'sandbox-1-clone', key: 'clone-url' } } }],
          volumeMounts: [{ name: 'workspace', mountPath: '/workspace' }],
          terminationMessagePolicy: 'FallbackToLogsOnError',
        },
      ],
      containers: [
        {
          name: 'sandbox',
          image: 'ghcr.io/acme/sandbox:1',
          imagePullPolicy: 'IfNotPresent',
          env: [{ name: 'HOME', value: '/workspace/home' }],
          ports: [{ name: 'preview', containerPort: 3000, protocol: 'TCP' }],
          resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '1', memory: '1Gi', 'example.com/gpu': '1' } },
          volumeMounts: [
            { name: 'workspace', mountPath: '/workspace' },
            { name: 'tmp', mountPath: '/tmp' },
          ],
          securityContext: { allowPrivilegeEscalation: false, privileged: false },
        },
        { name: 'sidecar', image: 'busybox' },
      ],
    },
  };
}

/** The valid Pod with one change made by `edit`. */
function podWith(edit: (pod: { metadata: Json; spec: Json & { containers: Json[]; initContainers: Json[]; volumes: Json[] } }) => void): Json {
  const pod = validPod() as { metadata: Json; spec: Json & { containers: Json[]; initContainers: Json[]; volumes: Json[] } };
  edit(pod);
  return pod;
}

describe('a Pod is valid by the API reference when every field is', () => {
  it('a full Pod has no causes and keeps its name', () => {
    expect(validatePod(validPod())).toEqual({ name: 'sandbox-1', causes: [] });
  });

  it('generateName stands for a missing name', () => {
    const { name, causes } = validatePod(podWith((p) => (p.metadata = { generateName: 'sandbox-' })));
    expect(causes).toEqual([]);
    expect(name).toMatch(/^sandbox-[a-z0-9]+$/);
  });
});

describe('a Pod is refused, field by field, for what the API server refuses', () => {
  it.each<[string, (pod: Parameters<Parameters<typeof podWith>[0]>[0]) => void, string, string]>([
    ['no metadata.name', (p) => (p.metadata = {}), 'metadata.name', 'FieldValueRequired'],
    ['a name that is no DNS subdomain', (p) => (p.metadata.name = 'Sandbox_1'), 'metadata.name', 'FieldValueInvalid'],
    ['a label key with two slashes', (p) => (p.metadata.labels = { 'a/b/c': 'x' }), 'metadata.labels', 'FieldValueInvalid'],
    ['a label value over 63 characters', (p) => (p.metadata.labels = { app: 'x'.repeat(64) }), 'metadata.labels[app]', 'FieldValueInvalid'],
    ['an annotation key that is no qualified name', (p) => (p.metadata.annotations = { 'bad key': 'x' }), 'metadata.annotations', 'FieldValueInvalid'],
    ['no spec', (p) => delete (p as Json).spec, 'spec', 'FieldValueRequired'],
    ['no containers', (p) => (p.spec.containers = []), 'spec.containers', 'FieldValueRequired'],
    ['a container without a name', (p) => delete p.spec.containers[0]!.name, 'spec.containers[0].name', 'FieldValueRequired'],
    ['a container name that is no DNS label', (p) => (p.spec.containers[0]!.name = 'Main'), 'spec.containers[0].name', 'FieldValueInvalid'],
    ['two containers of one name', (p) => (p.spec.containers[1]!.name = 'sandbox'), 'spec.containers[1].name', 'FieldValueDuplicate'],
    ['an init container named like a container', (p) => (p.spec.containers[1]!.name = 'clone'), 'spec.containers[1].name', 'FieldValueDuplicate'],
    ['a container without an image', (p) => (p.spec.containers[1]!.image = ' '), 'spec.containers[1].image', 'FieldValueRequired'],
    [
      'an unknown image pull policy',
      (p) => (p.spec.containers[0]!.imagePullPolicy = 'Sometimes'),
      'spec.containers[0].imagePullPolicy',
      'FieldValueNotSupported',
    ],
    [
      'an unknown termination message policy',
      (p) => (p.spec.initContainers[0]!.terminationMessagePolicy = 'Logs'),
      'spec.initContainers[0].terminationMessagePolicy',
      'FieldValueNotSupported',
    ],
    [
      'a mount of a volume the Pod lacks',
      (p) => (p.spec.containers[0]!.volumeMounts = [{ name: 'cache', mountPath: '/cache' }]),
      'spec.containers[0].volumeMounts[0].name',
      'FieldValueNotFound',
    ],
    [
      'a mount without a path',
      (p) => (p.spec.containers[0]!.volumeMounts = [{ name: 'tmp' }]),
      'spec.containers[0].volumeMounts[0].mountPath',
      'FieldValueRequired',
    ],
    [
      'two mounts at one path',
      (p) =>
        (p.spec.containers[0]!.volumeMounts = [
          { name: 'tmp', mountPath: '/x' },
          { name: 'workspace', mountPath: '/x' },
        ]),
      'spec.containers[0].volumeMounts[1].mountPath',
      'FieldValueInvalid',
    ],
    ['two volumes of one name', (p) => p.spec.volumes.push({ name: 'tmp', emptyDir: {} }), 'spec.volumes[2].name', 'FieldValueDuplicate'],
    ['a volume name that is no DNS label', (p) => (p.spec.volumes[1]!.name = 'Tmp'), 'spec.volumes[1].name', 'FieldValueInvalid'],
    [
      'a volume of two sources',
      (p) => (p.spec.volumes[0] = { name: 'workspace', emptyDir: {}, hostPath: { path: '/x' } }),
      'spec.volumes[0]',
      'FieldValueForbidden',
    ],
    [
      'a quantity outside the grammar',
      (p) => (p.spec.containers[0]!.resources = { limits: { cpu: 'lots' } }),
      'spec.containers[0].resources.limits[cpu]',
      'FieldValueInvalid',
    ],
    [
      'a negative quantity',
      (p) => (p.spec.containers[0]!.resources = { requests: { memory: '-1Gi' } }),
      'spec.containers[0].resources.requests[memory]',
      'FieldValueInvalid',
    ],
    [
      'a request above its limit',
      (p) => (p.spec.containers[0]!.resources = { requests: { cpu: '1500m' }, limits: { cpu: '1' } }),
      'spec.containers[0].resources.requests',
      'FieldValueInvalid',
    ],
    [
      'a resource name neither standard nor qualified',
      (p) => (p.spec.containers[0]!.resources = { limits: { gpu: '1' } }),
      'spec.containers[0].resources.limits[gpu]',
      'FieldValueInvalid',
    ],
    ['an env variable without a name', (p) => (p.spec.containers[0]!.env = [{ value: 'x' }]), 'spec.containers[0].env[0].name', 'FieldValueRequired'],
    [
      'an env name starting with a digit',
      (p) => (p.spec.containers[0]!.env = [{ name: '1X', value: 'x' }]),
      'spec.containers[0].env[0].name',
      'FieldValueInvalid',
    ],
    [
      'an env value and valueFrom together',
      (p) => (p.spec.containers[0]!.env = [{ name: 'X', value: 'x', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }]),
      'spec.containers[0].env[0].valueFrom',
      'FieldValueInvalid',
    ],
    [
      'a secretKeyRef without a key',
      (p) => (p.spec.initContainers[0]!.env = [{ name: 'X', valueFrom: { secretKeyRef: { name: 's' } } }]),
      'spec.initContainers[0].env[0].valueFrom.secretKeyRef.key',
      'FieldValueRequired',
    ],
    ['a container port of 0', (p) => (p.spec.containers[0]!.ports = [{ containerPort: 0 }]), 'spec.containers[0].ports[0].containerPort', 'FieldValueInvalid'],
    [
      'a port name that is no IANA service name',
      (p) => (p.spec.containers[0]!.ports = [{ name: 'Preview', containerPort: 3000 }]),
      'spec.containers[0].ports[0].name',
      'FieldValueInvalid',
    ],
    [
      'two ports of one name',
      (p) =>
        (p.spec.containers[0]!.ports = [
          { name: 'web', containerPort: 1 },
          { name: 'web', containerPort: 2 },
        ]),
      'spec.containers[0].ports[1].name',
      'FieldValueDuplicate',
    ],
    [
      'an unknown port protocol',
      (p) => (p.spec.containers[0]!.ports = [{ containerPort: 80, protocol: 'HTTP' }]),
      'spec.containers[0].ports[0].protocol',
      'FieldValueNotSupported',
    ],
    [
      'privileged with allowPrivilegeEscalation false',
      (p) => (p.spec.containers[0]!.securityContext = { allowPrivilegeEscalation: false, privileged: true }),
      'spec.containers[0].securityContext',
      'FieldValueInvalid',
    ],
    ['an unknown restart policy', (p) => (p.spec.restartPolicy = 'Sometimes'), 'spec.restartPolicy', 'FieldValueNotSupported'],
    ['an activeDeadlineSeconds of 0', (p) => (p.spec.activeDeadlineSeconds = 0), 'spec.activeDeadlineSeconds', 'FieldValueInvalid'],
    ['a negative grace period', (p) => (p.spec.terminationGracePeriodSeconds = -1), 'spec.terminationGracePeriodSeconds', 'FieldValueInvalid'],
    ['a nodeSelector value that is no label value', (p) => (p.spec.nodeSelector = { zone: 'a b' }), 'spec.nodeSelector[zone]', 'FieldValueInvalid'],
    ['a service account that is no DNS subdomain', (p) => (p.spec.serviceAccountName = 'Ars'), 'spec.serviceAccountName', 'FieldValueInvalid'],
  ])('%s', (_what, edit, field, reason) => {
    const { causes } = validatePod(podWith(edit));
    expect(causes).toContainEqual(expect.objectContaining({ field, reason }));
  });

  it('says each cause in the API server words: Required value, Invalid value: "…": why, Not found: "…"', () => {
    const { causes } = validatePod(
      podWith((p) => {
        p.spec.containers[0]!.resources = { limits: { cpu: 'lots' } };
        p.spec.containers[0]!.volumeMounts = [{ name: 'cache', mountPath: '/cache' }];
        p.spec.containers[1]!.image = '';
      }),
    );
    expect(causes.map((c) => `${c.field}: ${c.message}`)).toEqual([
      `spec.containers[0].resources.limits[cpu]: Invalid value: "lots": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
      'spec.containers[0].volumeMounts[0].name: Not found: "cache"',
      'spec.containers[1].image: Required value',
    ]);
  });
});
