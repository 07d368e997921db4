import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubernetesError } from '../providers/kubernetes/kubernetesPods.js';
import { bareRepository, client, manifests, NAMESPACE, type BareRepository } from '../providers/kubernetes/testing.js';
import { KubernetesStandIn } from './kubernetesStandIn.js';

let standIn: KubernetesStandIn;
let repo: BareRepository;

beforeAll(async () => {
  standIn = await KubernetesStandIn.start();
  repo = await bareRepository();
});

afterAll(async () => {
  await standIn.stop();
  await repo.remove();
});

async function request(method: string, path: string, body?: unknown, token: string | null = standIn.token): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${standIn.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : { text } };
}

const POD = `/api/v1/namespaces/${NAMESPACE}/pods`;

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
    ['a request above its limit', pod({}, { resources: { requests: { memory: '2Gi' }, limits: { memory: '1Gi' } } }), 'spec.containers[0].resources.requests', 'FieldValueInvalid'],
    ['a missing image', pod({}, { image: '' }), 'spec.containers[0].image', 'FieldValueRequired'],
    ['a mount of an unknown volume', pod({}, { volumeMounts: [{ name: 'nope', mountPath: '/x' }] }), 'spec.containers[0].volumeMounts[0].name', 'FieldValueNotFound'],
    ['an unknown restart policy', pod({ spec: { restartPolicy: 'Sometimes', containers: [{ name: 'main', image: 'busybox' }] } }), 'spec.restartPolicy', 'FieldValueNotSupported'],
  ])('%s', async (_what, body, field, reason) => {
    const { status, json } = await request('POST', POD, body);
    expect(status).toBe(422);
    expect(json).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Invalid', code: 422 });
    expect(json.message).toMatch(/^Pod "[^"]*" is invalid: /);
    expect((json.details as { causes: unknown[] }).causes).toContainEqual(expect.objectContaining({ field, reason }));
  });

  it('says the same to client-node, which the client maps to `invalid`', async () => {
    const made = manifests({ cloneUrl: repo.url });
    const main = made.pod.spec?.containers[0];
    if (main) main.resources = { limits: { cpu: 'lots' } };
    let error: unknown;
    try {
      await client(standIn).create(made);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(KubernetesError);
    expect((error as KubernetesError).reason).toBe('invalid');
    expect((error as KubernetesError).message).toContain('spec.containers[0].resources.limits[cpu]: Invalid value: "lots"');
  });
});

describe('the stand-in checks the bearer token and the namespace', () => {
  it('answers 401 Unauthorized without a known token, 404 for an unknown namespace on create, 400 for a mismatched namespace', async () => {
    expect((await request('GET', `${POD}/x`, undefined, null)).json).toMatchObject({ reason: 'Unauthorized', code: 401 });
    expect((await request('GET', `${POD}/x`, undefined, 'guess')).status).toBe(401);
    expect((await request('POST', '/api/v1/namespaces/absent/pods', pod())).json).toMatchObject({ code: 404, message: 'namespaces "absent" not found', details: { kind: 'namespaces' } });
    expect((await request('POST', POD, pod({ metadata: { name: 'x', namespace: 'other' } }))).status).toBe(400);
    expect((await request('GET', `${POD}/x`)).json).toMatchObject({ code: 404, message: 'pods "x" not found', reason: 'NotFound' });
  });
});

describe('the stand-in records every call', () => {
  it('keeps method, path, resource, verb, status and body; an exec records its protocol and command', async () => {
    const made = manifests({ cloneUrl: repo.url });
    const pods = client(standIn);
    const handle = await pods.create(made);
    await handle.waitUntilRunning();
    await handle.exec(['true'], { cwd: handle.workingDir, env: { PATH: process.env.PATH ?? '' } });
    await handle.delete();
    const mine = standIn.calls.filter((c) => c.name === handle.name || (c.verb === 'create' && c.body !== undefined && JSON.stringify(c.body).includes(handle.name)));
    const create = mine.find((c) => c.resource === 'pods' && c.verb === 'create');
    expect(create).toMatchObject({ method: 'POST', path: POD, status: 201, namespace: NAMESPACE });
    expect((create?.body as { metadata: { name: string } }).metadata.name).toBe(handle.name);
    const exec = mine.find((c) => c.resource === 'pods/exec');
    expect(exec).toMatchObject({ method: 'GET', status: 101, protocol: 'v5.channel.k8s.io' });
    expect(exec?.command?.slice(0, 3)).toEqual(['env', '-i', '/bin/sh']);
    expect(exec?.command?.at(-1)).toBe('true');
    expect(exec?.query.container).toEqual(['sandbox']);
    expect(mine.filter((c) => c.resource === 'pods' && c.verb === 'get').length).toBeGreaterThan(0);
  });
});

describe('the stand-in answers the log rules of the API server', () => {
  it('wants a container name for a Pod with several containers, and knows tailLines and limitBytes', async () => {
    const handle = await client(standIn).create(manifests({ cloneUrl: repo.url }));
    try {
      await handle.waitUntilRunning();
      const base = `${POD}/${handle.name}/log`;
      const unnamed = await request('GET', base);
      expect(unnamed.status).toBe(400);
      expect(unnamed.json.message).toBe(`a container name must be specified for pod ${handle.name}, choose one of: [sandbox] or one of the init containers: [clone]`);
      const limited = await request('GET', `${base}?container=clone&limitBytes=9`);
      expect(limited.json.text).toBe('ars-init:');
      expect((await request('GET', `${base}?container=nope`)).status).toBe(400);
    } finally {
      await handle.delete();
    }
  });
});

describe('an older API server without the v5 channel protocol still runs commands', () => {
  it('negotiates v4: exit codes and output arrive; the command gets its environment from stdin', async () => {
    const old = await KubernetesStandIn.start({ protocols: ['v4.channel.k8s.io'] });
    try {
      const handle = await client(old).create(manifests({ cloneUrl: repo.url }));
      await handle.waitUntilRunning();
      const out: Buffer[] = [];
      const result = await handle.exec(['sh', '-c', 'printf "%s" "$GREETING"; exit 4'], {
        cwd: handle.workingDir,
        env: { PATH: process.env.PATH ?? '', GREETING: 'hello from v4' },
        onStdout: (chunk) => out.push(chunk),
      });
      expect(result).toEqual({ exitCode: 4, aborted: false });
      expect(Buffer.concat(out).toString('utf8')).toBe('hello from v4');
      expect(old.callsOf('pods/exec').map((c) => c.protocol)).toEqual(['v4.channel.k8s.io']);
      await handle.delete();
    } finally {
      await old.stop();
    }
  });
});
