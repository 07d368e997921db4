// Commit in the Pod, push from here: the history leaves the Pod as a `git bundle` streamed over exec
// and is pushed from a clean local repository, so the push URL (it may carry a token) never enters
// the Pod, and the agent's git config (hooks, url rewrites) plays no part in the push.
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join('***');
  return out.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, '$1***@');
}

function localGit(args: string[], cwd: string, secrets: string[] = []): Promise<string> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0' };
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) resolve(stdout);
      else reject(new Error(redact(`${stderr}`.trim() || error.message, secrets).split('\n').slice(-3).join(' ')));
    });
  });
}

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
    const clean = join(local, 'clean.git');
    const branch = `refs/heads/${request.workingBranch}`;
    await localGit(['init', '--quiet', '--bare', clean], local);
    await localGit(['fetch', '--quiet', '--no-tags', bundle, `+HEAD:${branch}`], clean);
    await localGit(['push', '--quiet', '--', request.pushUrl, `${branch}:${branch}`], clean, [request.pushUrl]);
  } finally {
    await rm(local, { recursive: true, force: true });
  }
  return result;
}
