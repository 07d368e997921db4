import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import { KubernetesStandIn } from '@ars/kubernetes-stand-in';
import { KubernetesError, KubernetesPods } from './kubernetesPods.js';
import { bareRepository, client, manifests, NAMESPACE, output, type BareRepository } from './testing.js';

let standIn: KubernetesStandIn;
let repo: BareRepository;
const PATH = process.env.PATH ?? '/usr/bin:/bin';

beforeAll(async () => {
  standIn = await KubernetesStandIn.start({
    tokens: {
      'no-pods': [{ resources: ['secrets'], verbs: ['create', 'get', 'delete'] }],
      'no-exec': [{ resources: ['secrets', 'pods', 'pods/log'], verbs: ['*'] }],
    },
  });
  repo = await bareRepository();
});

afterAll(async () => {
  await standIn.stop();
  await repo.remove();
});

async function failure(promise: Promise<unknown>): Promise<KubernetesError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof KubernetesError) return error;
    throw error;
  }
  throw new Error('expected a KubernetesError');
}

describe('a clone that fails in the init container surfaces as an error with the reason', () => {
  it('says the repository could not be cloned, without the token of the clone URL', async () => {
    const pod = await client(standIn).create(manifests({ cloneUrl: 'https://x-access-token:sekrit-token@127.0.0.1:9/acme/app.git' }));
    try {
      const error = await failure(pod.waitUntilRunning());
      expect(error.reason).toBe('init_failed');
      expect(error.message).toMatch(
        /^the repository could not be prepared in the pod \(init container "clone" exited 1\): the repository could not be cloned: /,
      );
      expect(error.message).toContain("fatal: unable to access 'https://");
      expect(error.message).not.toContain('sekrit-token');
      expect(await pod.logs('clone')).not.toContain('sekrit-token');
      expect(standIn.pod(NAMESPACE, pod.name)?.status?.phase).toBe('Failed');
    } finally {
      await pod.delete();
    }
  });

  it('names a missing base branch', async () => {
    const pod = await client(standIn).create(manifests({ cloneUrl: repo.url, baseBranch: 'nope' }));
    try {
      const error = await failure(pod.waitUntilRunning());
      expect(error.reason).toBe('init_failed');
      expect(error.message).toContain('the base branch "nope" does not exist in the repository');
    } finally {
      await pod.delete();
    }
  });

  it('names a missing working branch when createBranch is false, and a missing root directory', async () => {
    const noBranch = await client(standIn).create(manifests({ cloneUrl: repo.url, workingBranch: 'absent', createBranch: false }));
    const noDir = await client(standIn).create(manifests({ cloneUrl: repo.url, rootDirectory: 'apps/none' }));
    try {
      expect((await failure(noBranch.waitUntilRunning())).message).toContain(
        'the working branch "absent" does not exist in the repository and createBranch is false',
      );
      expect((await failure(noDir.waitUntilRunning())).message).toContain(
        'the root directory "apps/none" does not exist in the repository on branch "ars/run-1"',
      );
    } finally {
      await noBranch.delete();
      await noDir.delete();
    }
  });
});

describe('a Pod that cannot start or takes too long fails the wait, never hangs', () => {
  it('fails at once when the init container cannot get its Secret (CreateContainerConfigError)', async () => {
    const made = manifests({ cloneUrl: repo.url });
    const ref = made.pod.spec?.initContainers?.[0]?.env?.find((e) => e.name === 'CLONE_URL')?.valueFrom?.secretKeyRef;
    if (ref) ref.name = 'missing-secret';
    const pod = await client(standIn).create(made);
    try {
      const error = await failure(pod.waitUntilRunning());
      expect(error.reason).toBe('pod_failed');
      expect(error.message).toBe('the init container "clone" cannot start: CreateContainerConfigError: secret "missing-secret" not found');
    } finally {
      await pod.delete();
    }
  });

  it('fails with a timeout naming the last state when the Pod is not running by the deadline', async () => {
    const made = manifests({ cloneUrl: repo.url });
    const init = made.pod.spec?.initContainers?.[0];
    if (init) init.command = ['sleep', '30'];
    const pod = await client(standIn).create(made);
    try {
      const error = await failure(pod.waitUntilRunning({ timeoutMs: 300 }));
      expect(error.reason).toBe('timeout');
      expect(error.message).toMatch(
        /^the pod "k8s-[0-9a-f]+" was not running within 0 s \(last state: Pending, clone running, sandbox waiting PodInitializing\)$/,
      );
    } finally {
      await pod.delete();
    }
  });
});

describe('exec of a command that fails gives its exit code', () => {
  it('answers the exit code of a failing command, 127 for a missing one, and not_found after the Pod is gone', async () => {
    const pod = await client(standIn).create(manifests({ cloneUrl: repo.url }));
    await pod.waitUntilRunning();
    const git = output();
    expect((await pod.exec(['git', 'checkout', 'no-such-branch'], { cwd: pod.workingDir, env: { PATH }, ...git })).exitCode).toBe(1);
    expect(git.stderr()).toContain('no-such-branch');
    const missing = output();
    expect((await pod.exec(['no-such-command-xyz'], { cwd: pod.workingDir, env: { PATH }, ...missing })).exitCode).toBe(127);
    expect(missing.stderr()).toContain('no-such-command-xyz');
    await pod.delete();
    const gone = await failure(pod.exec(['true'], { cwd: pod.workingDir, env: { PATH } }));
    expect(gone.reason).toBe('not_found');
    expect(gone.message).toBe(`pods "${pod.name}" was not found in ${NAMESPACE} (404)`);
  });

  it('refuses an environment variable name the shell could not export', async () => {
    const pod = await client(standIn).create(manifests({ cloneUrl: repo.url }));
    try {
      await pod.waitUntilRunning();
      const error = await failure(pod.exec(['true'], { cwd: pod.workingDir, env: { 'BAD-NAME': 'x' } }));
      expect(error.message).toBe('the environment variable name "BAD-NAME" is not valid');
    } finally {
      await pod.delete();
    }
  });
});

describe('API errors are mapped to clear messages', () => {
  it('403 on pods: the service account may not create pods in the namespace (and the Secret made first is removed)', async () => {
    const made = manifests({ cloneUrl: repo.url });
    const error = await failure(client(standIn, 'no-pods').create(made));
    expect(error.reason).toBe('forbidden');
    expect(error.httpStatus).toBe(403);
    expect(error.message).toMatch(/^the service account may not create pods in ars-sandboxes \(403\): pods is forbidden: /);
    expect(standIn.secret(NAMESPACE, made.secret.metadata?.name ?? '')).toBeUndefined();
  });

  it('403 on pods/exec: the service account may not create pods/exec', async () => {
    const pod = await client(standIn).create(manifests({ cloneUrl: repo.url }));
    try {
      await pod.waitUntilRunning();
      const limited = client(standIn, 'no-exec').attach(pod.name, pod.secretName, pod.workingDir);
      const error = await failure(limited.exec(['true'], { cwd: pod.workingDir }));
      expect(error.reason).toBe('forbidden');
      expect(error.message).toBe('the service account may not create pods/exec in ars-sandboxes (403)');
      expect(await limited.logs('clone')).toContain('ars-init:');
    } finally {
      await pod.delete();
    }
  });

  it('404 on the namespace: the namespace does not exist', async () => {
    const error = await failure(client(standIn, standIn.token, 'absent-ns').create(manifests({ cloneUrl: repo.url, namespace: 'absent-ns' })));
    expect(error.reason).toBe('namespace_not_found');
    expect(error.message).toBe('the namespace "absent-ns" does not exist (404)');
  });

  it('401: the credentials were refused', async () => {
    const error = await failure(client(standIn, 'wrong-token').create(manifests({ cloneUrl: repo.url })));
    expect(error.reason).toBe('unauthorized');
    expect(error.message).toBe('the Kubernetes API server refused the credentials (401); check the token or kubeconfig');
  });

  it('an unreachable API server is unavailable, naming the server', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const pods = new KubernetesPods({ config: { kind: 'server', server: `http://127.0.0.1:${port}`, token: 't' }, namespace: NAMESPACE });
    const error = await failure(pods.create(manifests({ cloneUrl: repo.url })));
    expect(error.reason).toBe('unavailable');
    expect(error.message).toContain(`the Kubernetes API server at http://127.0.0.1:${port} could not be reached`);
  });

  it('409: a Pod of that name exists already', async () => {
    const made = manifests({ cloneUrl: repo.url });
    const pods = client(standIn);
    const pod = await pods.create(made);
    try {
      const again = { ...made, secret: { ...made.secret, metadata: { ...made.secret.metadata, name: `${pod.name}-second` } } };
      const error = await failure(pods.create(again));
      expect(error.reason).toBe('conflict');
      expect(error.message).toBe(`pods "${pod.name}" already exists in ars-sandboxes (409)`);
      expect(standIn.secret(NAMESPACE, `${pod.name}-second`)).toBeUndefined();
    } finally {
      await pod.delete();
    }
  });
});

describe('delete is idempotent', () => {
  it('deleting a Pod that never existed is fine', async () => {
    const pods = client(standIn);
    expect(await pods.attach('k8s-never-was', 'k8s-never-was-clone', '/workspace/repo').delete()).toEqual({ pod: false, secret: false });
  });
});
