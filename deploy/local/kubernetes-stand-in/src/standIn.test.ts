// The stand-in over HTTP, as any client sees it: 422 Status with causes, tokens and namespaces,
// and the NetworkPolicy resource. (The provider's client against it: services/sandboxes.)
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubernetesStandIn, kubeletEvictionMessage } from './standIn.js';

const NAMESPACE = 'ars-sandboxes';
const POD = `/api/v1/namespaces/${NAMESPACE}/pods`;
const SECRET = `/api/v1/namespaces/${NAMESPACE}/secrets`;
const POLICY = `/apis/networking.k8s.io/v1/namespaces/${NAMESPACE}/networkpolicies`;

let standIn: KubernetesStandIn;

beforeAll(async () => {
  standIn = await KubernetesStandIn.start();
});

afterAll(async () => {
  await standIn.stop();
});

function pod(overrides: Record<string, unknown> = {}, container: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'valid-name' },
    spec: { containers: [{ name: 'main', image: 'busybox', ...container }] },
    ...overrides,
  };
}

describe('the stand-in rejects an invalid manifest like the API server (422 Status with causes)', () => {
  it.each([
    ['missing containers', pod({ spec: { containers: [] } }), 'spec.containers', 'FieldValueRequired'],
    ['a bad name', pod({ metadata: { name: 'Bad_Name' } }), 'metadata.name', 'FieldValueInvalid'],
    ['no name', pod({ metadata: {} }), 'metadata.name', 'FieldValueRequired'],
    ['an invalid quantity', pod({}, { resources: { limits: { cpu: 'lots' } } }), 'spec.containers[0].resources.limits[cpu]', 'FieldValueInvalid'],
    [
      'a request above its limit',
      pod({}, { resources: { requests: { memory: '2Gi' }, limits: { memory: '1Gi' } } }),
      'spec.containers[0].resources.requests',
      'FieldValueInvalid',
    ],
    ['a missing image', pod({}, { image: '' }), 'spec.containers[0].image', 'FieldValueRequired'],
    [
      'a mount of an unknown volume',
      pod({}, { volumeMounts: [{ name: 'nope', mountPath: '/x' }] }),
      'spec.containers[0].volumeMounts[0].name',
      'FieldValueNotFound',
    ],
    [
      'an unknown restart policy',
      pod({ spec: { restartPolicy: 'Sometimes', containers: [{ name: 'main', image: 'busybox' }] } }),
      'spec.restartPolicy',
      'FieldValueNotSupported',
    ],
  ])('%s', async (_what, body, field, reason) => {
    const { status, json } = await standIn.request('POST', POD, body);
    expect(status).toBe(422);
    expect(json).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Invalid', code: 422 });
    expect(json.message).toMatch(/^Pod "[^"]*" is invalid: /);
    expect((json.details as { causes: unknown[] }).causes).toContainEqual(expect.objectContaining({ field, reason }));
  });

  it('a Secret with a bad key and a NetworkPolicy with a bad CIDR are refused the same way', async () => {
    const secret = await standIn.request('POST', SECRET, { metadata: { name: 's' }, data: { 'no/slash': 'eA==' } });
    expect(secret.status).toBe(422);
    expect(secret.json.message).toMatch(/^Secret "s" is invalid: data\[no\/slash\]: Invalid value: "no\/slash": a valid config key/);
    const policy = await standIn.request('POST', POLICY, { metadata: { name: 'p' }, spec: { egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/33' } }] }] } });
    expect(policy.status).toBe(422);
    expect(policy.json.message).toMatch(/^NetworkPolicy "p" is invalid: spec\.egress\[0\]\.to\[0\]\.ipBlock\.cidr: Invalid value: "10\.0\.0\.0\/33"/);
  });
});

describe('the stand-in checks the bearer token and the namespace', () => {
  it('answers 401 Unauthorized without a known token, 404 for an unknown namespace on create, 400 for a mismatched namespace', async () => {
    expect((await standIn.request('GET', `${POD}/x`, undefined, null)).json).toMatchObject({ reason: 'Unauthorized', code: 401 });
    expect((await standIn.request('GET', `${POD}/x`, undefined, 'guess')).status).toBe(401);
    expect((await standIn.request('POST', '/api/v1/namespaces/absent/pods', pod())).json).toMatchObject({
      code: 404,
      message: 'namespaces "absent" not found',
      details: { kind: 'namespaces' },
    });
    expect((await standIn.request('POST', POD, pod({ metadata: { name: 'x', namespace: 'other' } }))).status).toBe(400);
    expect((await standIn.request('GET', `${POD}/x`)).json).toMatchObject({ code: 404, message: 'pods "x" not found', reason: 'NotFound' });
  });

  it('a token without the right to a resource gets 403 Forbidden naming the verb and resource', async () => {
    const limited = await KubernetesStandIn.start({ tokens: { reader: [{ resources: ['pods'], verbs: ['get'] }] } });
    try {
      const refused = await fetch(`${limited.url}${SECRET}/x`, { headers: { authorization: 'Bearer reader' } });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ reason: 'Forbidden', message: expect.stringContaining('cannot get resource "secrets"') });
    } finally {
      await limited.stop();
    }
  });
});

describe('the stand-in stores NetworkPolicies (networking.k8s.io/v1)', () => {
  it('creates, reads, refuses a second of the same name, and deletes one', async () => {
    const body = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'sandboxes' },
      spec: { podSelector: {}, policyTypes: ['Ingress'] },
    };
    const created = await standIn.request('POST', POLICY, body);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ kind: 'NetworkPolicy', metadata: { name: 'sandboxes', namespace: NAMESPACE } });
    expect(standIn.networkPolicy(NAMESPACE, 'sandboxes')?.spec?.policyTypes).toEqual(['Ingress']);
    expect((await standIn.request('GET', `${POLICY}/sandboxes`)).status).toBe(200);
    expect((await standIn.request('POST', POLICY, body)).json).toMatchObject({ code: 409, reason: 'AlreadyExists' });
    expect((await standIn.request('DELETE', `${POLICY}/sandboxes`)).status).toBe(200);
    expect((await standIn.request('GET', `${POLICY}/sandboxes`)).status).toBe(404);
    const creates = standIn.callsOf('networkpolicies', 'create').filter((c) => (c.body as { metadata?: { name?: string } }).metadata?.name === 'sandboxes');
    expect(creates.map((c) => c.status)).toEqual([201, 409]);
  });
});

/** Creates a Pod (no init containers) and waits until the stand-in has it Running. */
async function runningPod(name: string, restartPolicy: 'Never' | 'Always'): Promise<void> {
  const created = await standIn.request('POST', POD, pod({ metadata: { name }, spec: { restartPolicy, containers: [{ name: 'main', image: 'busybox' }] } }));
  expect(created.status).toBe(201);
  for (;;) {
    const { json } = await standIn.request('GET', `${POD}/${name}`);
    if ((json.status as { phase?: string }).phase === 'Running') return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function statusOf(name: string): Promise<Record<string, unknown>> {
  const { status, json } = await standIn.request('GET', `${POD}/${name}`);
  expect(status).toBe(200);
  return json.status as Record<string, unknown>;
}

describe("test controls that play the kubelet: a container OOM-killed, a Pod evicted, reported as a real API server's Pod status", () => {
  it('oomKill with restartPolicy Never: the container terminated OOMKilled (137), the Pod Failed, Ready False (PodFailed)', async () => {
    await runningPod('oom-never', 'Never');
    await standIn.oomKill(NAMESPACE, 'oom-never');
    const status = await statusOf('oom-never');
    expect(status.phase).toBe('Failed');
    expect(status.reason).toBeUndefined();
    expect(status.containerStatuses).toEqual([
      expect.objectContaining({
        name: 'main',
        ready: false,
        started: false,
        restartCount: 0,
        state: { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: expect.any(String), finishedAt: expect.any(String) } },
      }),
    ]);
    expect(status.conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'Ready', status: 'False', reason: 'PodFailed' }),
        expect.objectContaining({ type: 'ContainersReady', status: 'False', reason: 'PodFailed' }),
      ]),
    );
    // A killed container takes no exec, and a second OOM kill has nothing to kill.
    await expect(standIn.oomKill(NAMESPACE, 'oom-never')).rejects.toThrow(/is not running/);
  });

  it('oomKill with restartPolicy Always: the kubelet restarted the container, lastState holds OOMKilled, restartCount 1, still Running', async () => {
    await runningPod('oom-always', 'Always');
    await standIn.oomKill(NAMESPACE, 'oom-always', 'main');
    const status = await statusOf('oom-always');
    expect(status.phase).toBe('Running');
    expect(status.containerStatuses).toEqual([
      expect.objectContaining({
        restartCount: 1,
        state: { running: { startedAt: expect.any(String) } },
        lastState: { terminated: expect.objectContaining({ exitCode: 137, reason: 'OOMKilled' }) },
      }),
    ]);
  });

  it("evict for the Pod's own storage: Failed, reason Evicted, the kubelet's message, containers terminated Error (137), no DisruptionTarget", async () => {
    await runningPod('evicted-storage', 'Never');
    const message = kubeletEvictionMessage.podEphemeralStorage('10Gi');
    expect(message).toBe('Pod ephemeral local storage usage exceeds the total limit of containers 10Gi. ');
    await standIn.evict(NAMESPACE, 'evicted-storage', message);
    const status = await statusOf('evicted-storage');
    expect(status).toMatchObject({ phase: 'Failed', reason: 'Evicted', message });
    expect(status.containerStatuses).toEqual([
      expect.objectContaining({ ready: false, state: { terminated: expect.objectContaining({ exitCode: 137, reason: 'Error' }) } }),
    ]);
    expect((status.conditions as { type: string }[]).map((c) => c.type)).not.toContain('DisruptionTarget');
  });

  it("evict for the node's shortage: the DisruptionTarget condition (TerminationByKubelet) the kubelet adds to a node-pressure eviction", async () => {
    await runningPod('evicted-node', 'Never');
    const message = kubeletEvictionMessage.nodeLow('memory');
    expect(message).toBe('The node was low on resource: memory. ');
    expect(kubeletEvictionMessage.emptyDir('workspace', '10Gi')).toBe('Usage of EmptyDir volume "workspace" exceeds the limit "10Gi". ');
    expect(kubeletEvictionMessage.containerEphemeralStorage('sandbox', '10Gi')).toBe('Container sandbox exceeded its local ephemeral storage limit "10Gi". ');
    await standIn.evict(NAMESPACE, 'evicted-node', message);
    const status = await statusOf('evicted-node');
    expect(status).toMatchObject({ phase: 'Failed', reason: 'Evicted', message });
    expect(status.conditions).toContainEqual(expect.objectContaining({ type: 'DisruptionTarget', status: 'True', reason: 'TerminationByKubelet', message }));
  });
});
