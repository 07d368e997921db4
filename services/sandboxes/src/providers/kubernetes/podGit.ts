// Commit in the Pod, push from here: the history leaves the Pod as a `git bundle` streamed over exec
// and is pushed from a clean local repository, so the push URL (it may carry a token) never enters
// the Pod, and the agent's git config (hooks, url rewrites) plays no part in the push.
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pushFromCleanRepository } from '../git.js';
import type { PushRequest, PushResult } from '../provider.js';
import { KubernetesError, type SandboxPod } from './kubernetesPods.js';
import { REPO_DIR } from './podManifest.js';

const SAFE = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false'];
const IDENTITY = {
  GIT_AUTHOR_NAME: 'Agent Run Service',
  GIT_AUTHOR_EMAIL: 'agent@ars.local',
  GIT_COMMITTER_NAME: 'Agent Run Service',
  GIT_COMMITTER_EMAIL: 'agent@ars.local',
  GIT_TERMINAL_PROMPT: '0',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** git in the Pod's working tree, its stdout collected (or handed to `onStdout`). */
async function podGit(pod: SandboxPod, args: string[], onStdout?: (chunk: Buffer) => void): Promise<string> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const result = await pod.exec(['git', ...SAFE, ...args], {
    cwd: REPO_DIR,
    env: IDENTITY,
    onStdout: onStdout ?? ((chunk) => out.push(chunk)),
    onStderr: (chunk) => err.push(chunk),
  });
  if (result.exitCode !== 0) {
    const detail = Buffer.concat(err).toString('utf8').trim().split('\n').slice(-3).join(' ');
    throw new KubernetesError('exec_failed', `git ${args[0]} failed in the sandbox (exit ${result.exitCode}): ${detail}`);
  }
  return Buffer.concat(out).toString('utf8');
}

async function commitInPod(pod: SandboxPod, message: string): Promise<PushResult> {
  await podGit(pod, ['add', '-A']);
  const committed = (await podGit(pod, ['status', '--porcelain'])).trim().length > 0;
  if (committed) await podGit(pod, ['commit', '--quiet', '--no-verify', '-m', message]);
  return { committed, commit: (await podGit(pod, ['rev-parse', 'HEAD'])).trim() };
}

async function bundleFromPod(pod: SandboxPod, bundle: string): Promise<void> {
  const file = createWriteStream(bundle);
  try {
    await podGit(pod, ['bundle', 'create', '--quiet', '-', 'HEAD'], (chunk) => file.write(chunk));
  } finally {
    await new Promise<void>((resolve, reject) => file.end((error?: Error | null) => (error ? reject(error) : resolve())));
  }
}

/** Commits every change in the Pod's working tree (when there is one) and pushes HEAD to the working branch from this machine. */
export async function commitAndPushFromPod(pod: SandboxPod, request: PushRequest): Promise<PushResult> {
  const result = await commitInPod(pod, request.commitMessage);
  const local = await mkdtemp(join(tmpdir(), 'ars-k8s-push-'));
  try {
    const bundle = join(local, 'out.bundle');
    await bundleFromPod(pod, bundle);
    await pushFromCleanRepository(bundle, request.workingBranch, request.pushUrl, local);
  } finally {
    await rm(local, { recursive: true, force: true });
  }
  return result;
}
