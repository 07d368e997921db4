import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { KubernetesStandIn } from '../../testing/kubernetesStandIn.js';
import { KubernetesAllocationError, KubernetesProvider } from './kubernetesProvider.js';
import { kubernetesSettings } from './settings.js';
import { bareRepository, NAMESPACE, type BareRepository } from './testing.js';

let standIn: KubernetesStandIn;
let repo: BareRepository;
let provider: KubernetesProvider;

beforeAll(async () => {
  standIn = await KubernetesStandIn.start();
  repo = await bareRepository();
  provider = new KubernetesProvider(kubernetesSettings({ K8S_IMAGE: 'ghcr.io/acme/sandbox:1', K8S_API_SERVER: standIn.url, K8S_TOKEN: standIn.token }), { pollIntervalMs: 25 });
});

afterAll(async () => {
  await standIn.stop();
  await repo.remove();
});

function branchFile(branch: string, path: string): string {
  return execFileSync('git', ['show', `${branch}:${path}`], { cwd: repo.url, encoding: 'utf8' });
}

describe('the provider allocates a Pod, pushes its changes from outside it, and releases it', () => {
  it('allocate → change the tree in the Pod → commitAndPush lands on the working branch → release (twice)', async () => {
    const sandbox = await provider.allocate({ runId: 'run-1', cloneUrl: repo.url, baseBranch: 'main', workingBranch: 'ars/push-1', rootDirectory: 'packages/web' });
    expect(sandbox.cwd).toBe('/workspace/repo/packages/web');
    expect(standIn.pod(NAMESPACE, sandbox.sandboxId)?.metadata?.labels).toMatchObject({ 'agent-run-service.dev/run-id': 'run-1' });
    const write = await sandbox.pod.exec(['sh', '-c', 'echo "made in the pod" > CHANGE.md'], { cwd: sandbox.cwd });
    expect(write.exitCode).toBe(0);

    const pushed = await provider.commitAndPush({ sandbox, workingBranch: 'ars/push-1', pushUrl: repo.url, commitMessage: 'agent: change' });
    expect(pushed.committed).toBe(true);
    expect(pushed.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(branchFile('ars/push-1', 'packages/web/CHANGE.md')).toBe('made in the pod\n');
    expect(execFileSync('git', ['rev-parse', 'ars/push-1'], { cwd: repo.url, encoding: 'utf8' }).trim()).toBe(pushed.commit);
    // The push URL never went into the Pod: no exec carried it.
    expect(standIn.callsOf('pods/exec').some((c) => JSON.stringify(c.command).includes(repo.url))).toBe(false);

    const again = await provider.commitAndPush({ sandbox, workingBranch: 'ars/push-1', pushUrl: repo.url, commitMessage: 'agent: nothing' });
    expect(again).toEqual({ committed: false, commit: pushed.commit });

    await provider.release(sandbox.sandboxId);
    await provider.release(sandbox.sandboxId);
    expect(standIn.pod(NAMESPACE, sandbox.sandboxId)).toBeUndefined();
  });

  it('a failed clone is an allocation error with a decision code, and its Pod is deleted', async () => {
    let error: unknown;
    try {
      await provider.allocate({ runId: 'run-2', cloneUrl: repo.url, baseBranch: 'gone', workingBranch: 'ars/x', rootDirectory: null });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(KubernetesAllocationError);
    expect((error as KubernetesAllocationError).decisionCode).toBe('base_branch_missing');
    expect((error as Error).message).toContain('the base branch "gone" does not exist in the repository');
    const created = standIn.callsOf('pods', 'create').at(-1);
    expect(created?.status).toBe(201);
    const name = (created?.body as { metadata: { name: string } }).metadata.name;
    expect(standIn.pod(NAMESPACE, name)).toBeUndefined();
    expect(standIn.secret(NAMESPACE, `${name}-clone`)).toBeUndefined();
  });
});
