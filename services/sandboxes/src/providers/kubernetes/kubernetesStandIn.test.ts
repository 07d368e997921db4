// The provider's Kubernetes client against the stand-in API server (@ars/kubernetes-stand-in): what
// client-node makes of its answers. The stand-in's own rules are tested in its package.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { KubernetesStandIn } from '@ars/kubernetes-stand-in';
import { KubernetesError } from './kubernetesPods.js';
import { bareRepository, client, manifests, NAMESPACE, type BareRepository } from './testing.js';

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

const POD = `/api/v1/namespaces/${NAMESPACE}/pods`;

describe('the stand-in rejects an invalid manifest like the API server (422 Status with causes)', () => {
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

describe('the stand-in records every call', () => {
  it('keeps method, path, resource, verb, status and body; an exec records its protocol and command', async () => {
    const made = manifests({ cloneUrl: repo.url });
    const pods = client(standIn);
    const handle = await pods.create(made);
    await handle.waitUntilRunning();
    await handle.exec(['true'], { cwd: handle.workingDir, env: { PATH: process.env.PATH ?? '' } });
    await handle.delete();
    const mine = standIn.calls.filter(
      (c) => c.name === handle.name || (c.verb === 'create' && c.body !== undefined && JSON.stringify(c.body).includes(handle.name)),
    );
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
      const unnamed = await standIn.request('GET', base);
      expect(unnamed.status).toBe(400);
      expect(unnamed.json.message).toBe(
        `a container name must be specified for pod ${handle.name}, choose one of: [sandbox] or one of the init containers: [clone]`,
      );
      const limited = await standIn.request('GET', `${base}?container=clone&limitBytes=9`);
      expect(limited.json.text).toBe('ars-init:');
      expect((await standIn.request('GET', `${base}?container=nope`)).status).toBe(400);
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
