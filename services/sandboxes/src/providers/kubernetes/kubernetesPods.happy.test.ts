import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { KubernetesStandIn } from '@ars/kubernetes-stand-in';
import { bareRepository, client, manifests, NAMESPACE, output, type BareRepository } from './testing.js';
import { REPO_DIR } from './podManifest.js';

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

const PATH = process.env.PATH ?? '/usr/bin:/bin';

describe('a sandbox Pod is created, runs with the repository cloned by its init container, and is deleted', () => {
  it('create → running → exec git and echo with exit codes and output → logs → delete (twice)', async () => {
    const pods = client(standIn);
    const made = manifests({ cloneUrl: repo.url });
    const pod = await pods.create(made);
    const running = await pod.waitUntilRunning();
    expect(running.status?.phase).toBe('Running');
    expect(running.status?.initContainerStatuses?.[0]?.state?.terminated?.exitCode).toBe(0);

    const branch = output();
    const head = await pod.exec(['git', 'rev-parse', '--abbrev-ref', 'HEAD'], { cwd: pod.workingDir, env: { PATH }, ...branch });
    expect(head).toEqual({ exitCode: 0, aborted: false });
    expect(branch.stdout().trim()).toBe('ars/run-1');

    const status = output();
    expect((await pod.exec(['git', 'status', '--porcelain'], { cwd: pod.workingDir, env: { PATH }, ...status })).exitCode).toBe(0);
    expect(status.stdout()).toBe('');

    const echo = output();
    const failed = await pod.exec(['sh', '-c', 'echo to-stdout; echo to-stderr >&2; exit 3'], { cwd: pod.workingDir, env: { PATH }, ...echo });
    expect(failed.exitCode).toBe(3);
    expect(echo.stdout()).toBe('to-stdout\n');
    expect(echo.stderr()).toBe('to-stderr\n');

    const log = await pod.logs('clone');
    expect(log).toMatch(/^ars-init: [0-9a-f]{40} on ars\/run-1$/m);
    expect(await pod.logs('clone', { tailLines: 1 })).toBe(log.trim().split('\n').pop() + '\n');

    const workspace = standIn.workspaceOf(NAMESPACE, pod.name);
    expect(workspace && existsSync(workspace)).toBe(true);
    expect(await pod.delete()).toEqual({ pod: true, secret: true });
    expect(await pod.delete()).toEqual({ pod: false, secret: false });
    expect(workspace && existsSync(workspace)).toBe(false);
    expect(standIn.pod(NAMESPACE, pod.name)).toBeUndefined();
    expect(standIn.secret(NAMESPACE, pod.secretName)).toBeUndefined();

    const calls = standIn.calls.filter((c) => c.name === pod.name || c.name === pod.secretName || (c.verb === 'create' && c.resource !== 'pods/exec'));
    expect(calls.filter((c) => c.verb !== 'get').map((c) => `${c.verb} ${c.resource} ${c.status}`)).toEqual([
      'create secrets 201',
      'create pods 201',
      'create pods/exec 101',
      'create pods/exec 101',
      'create pods/exec 101',
      'delete pods 200',
      'delete secrets 200',
      'delete pods 404',
      'delete secrets 404',
    ]);
    expect(standIn.callsOf('pods/log').map((c) => c.query.container)).toEqual([['clone'], ['clone']]);
    expect(standIn.callsOf('pods/exec').every((c) => c.protocol === 'v5.channel.k8s.io')).toBe(true);
  });
});

describe('the working tree is the repository on the working branch, without credentials', () => {
  it('checks out an existing working branch from the remote, and sets origin to the URL as given', async () => {
    const pod = await client(standIn).create(manifests({ cloneUrl: repo.url, workingBranch: 'feature', createBranch: false }));
    try {
      await pod.waitUntilRunning();
      const files = output();
      expect((await pod.exec(['ls'], { cwd: pod.workingDir, env: { PATH }, ...files })).exitCode).toBe(0);
      expect(files.stdout().split('\n')).toContain('FEATURE.md');
      const origin = output();
      await pod.exec(['git', 'remote', 'get-url', 'origin'], { cwd: pod.workingDir, env: { PATH }, ...origin });
      expect(origin.stdout().trim()).toBe(repo.url);
    } finally {
      await pod.delete();
    }
  });
});

describe('exec applies the working directory, the environment (nothing inherited) and stdin', () => {
  it('runs in the root directory with exactly the given environment and reads stdin to its end', async () => {
    const pod = await client(standIn).create(manifests({ cloneUrl: repo.url, rootDirectory: 'packages/web' }));
    try {
      await pod.waitUntilRunning();
      expect(pod.workingDir).toBe(`${REPO_DIR}/packages/web`);
      const files = output();
      await pod.exec(['ls'], { cwd: pod.workingDir, env: { PATH }, ...files });
      expect(files.stdout()).toBe('index.js\n');

      const env = output();
      const value = 'two words; $(not run) "quoted"\nsecond line';
      await pod.exec(['sh', '-c', 'printf "%s|%s|[%s]" "$GREETING" "$HOME" "$ARS_SANDBOX_ID"'], {
        cwd: pod.workingDir,
        env: { PATH, GREETING: value },
        ...env,
      });
      // The stand-in maps `/workspace` on command lines only; values sent on stdin stay as given.
      expect(env.stdout()).toBe(`${value}|/workspace/home|[]`);

      const cat = output();
      expect((await pod.exec(['cat'], { cwd: pod.workingDir, env: { PATH }, stdin: 'line one\nline two\n', ...cat })).exitCode).toBe(0);
      expect(cat.stdout()).toBe('line one\nline two\n');

      const missing = output();
      const result = await pod.exec(['pwd'], { cwd: '/workspace/repo/nope', env: { PATH }, ...missing });
      expect(result.exitCode).toBe(126);
      expect(missing.stderr()).toMatch(/the working directory \S*\/repo\/nope does not exist/);
    } finally {
      await pod.delete();
    }
  });

  it('runs a node program (the way a harness CLI runs) that changes the working tree', async () => {
    const pod = await client(standIn).create(manifests({ cloneUrl: repo.url }));
    try {
      await pod.waitUntilRunning();
      const program =
        "require('fs').writeFileSync('NOTES.md', 'from the agent\\n'); console.log(JSON.stringify({type: 'completed', cwd: process.cwd().endsWith('/repo')}))";
      const harness = output();
      const result = await pod.exec([process.execPath, '-e', program], { cwd: pod.workingDir, env: { PATH }, ...harness });
      expect(result.exitCode).toBe(0);
      expect(JSON.parse(harness.stdout())).toEqual({ type: 'completed', cwd: true });
      const status = output();
      await pod.exec(['git', 'status', '--porcelain'], { cwd: pod.workingDir, env: { PATH }, ...status });
      expect(status.stdout()).toBe('?? NOTES.md\n');
    } finally {
      await pod.delete();
    }
  });
});

describe('an aborted exec signals the command in the Pod', () => {
  it('sends SIGTERM through a second exec and answers with the exit code 143', async () => {
    const pod = await client(standIn).create(manifests({ cloneUrl: repo.url }));
    try {
      await pod.waitUntilRunning();
      const controller = new AbortController();
      const result = await pod.exec(['sh', '-c', 'echo started; exec sleep 30'], {
        cwd: pod.workingDir,
        env: { PATH },
        signal: controller.signal,
        onStdout: () => controller.abort(),
      });
      expect(result).toEqual({ exitCode: 143, aborted: true });
      const kills = standIn.callsOf('pods/exec').filter((c) => c.name === pod.name && c.command?.includes('ars-kill'));
      expect(kills.map((c) => c.command?.at(-1))).toEqual(['TERM']);
    } finally {
      await pod.delete();
    }
  });

  it('escalates to SIGKILL after the grace when the command ignores SIGTERM (exit code 137)', async () => {
    const pod = await client(standIn).create(manifests({ cloneUrl: repo.url }));
    try {
      await pod.waitUntilRunning();
      const controller = new AbortController();
      const result = await pod.exec(['sh', '-c', 'trap "" TERM; echo started; while :; do sleep 1; done'], {
        cwd: pod.workingDir,
        env: { PATH },
        signal: controller.signal,
        killGraceMs: 200,
        onStdout: () => controller.abort(),
      });
      expect(result).toEqual({ exitCode: 137, aborted: true });
      const kills = standIn.callsOf('pods/exec').filter((c) => c.name === pod.name && c.command?.includes('ars-kill'));
      expect(kills.map((c) => c.command?.at(-1))).toEqual(['TERM', 'KILL']);
    } finally {
      await pod.delete();
    }
  });
});
