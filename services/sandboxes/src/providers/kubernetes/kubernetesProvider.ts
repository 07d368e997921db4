// The Kubernetes provider in the shape of the service's provider seam (allocate / commitAndPush /
// release), built on the Pod client. Not wired into the service yet. The push leaves the Pod as a
// git bundle streamed over exec and is made from a clean local repository, so the push URL (it may
// carry a token) never enters the Pod.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubernetesError, KubernetesPods, type SandboxPod } from './kubernetesPods.js';
import { buildSandboxManifests, HOME_DIR, ManifestError, REPO_DIR } from './podManifest.js';
import type { KubernetesSettings } from './settings.js';

export interface KubernetesAllocateRequest {
  runId: string;
  /** The clone URL as the catalog answered it (may carry a token): it goes to the Pod's Secret only. */
  cloneUrl: string;
  baseBranch: string;
  workingBranch: string;
  /** Default true (the local provider always creates a missing working branch). */
  createBranch?: boolean;
  rootDirectory: string | null;
  signal?: AbortSignal;
}

export interface KubernetesSandbox {
  /** The provider's id of the sandbox: the Pod's name. */
  sandboxId: string;
  pod: SandboxPod;
  /** In-Pod paths. */
  repoDir: string;
  cwd: string;
  home: string;
}

export interface KubernetesPushRequest {
  sandbox: KubernetesSandbox;
  workingBranch: string;
  /** A freshly fetched clone URL (may carry a token); used on this machine only. */
  pushUrl: string;
  commitMessage: string;
}

/** A failure of allocation with a message fit for the run's `error` and a decision code for the lifecycle event. */
export class KubernetesAllocationError extends Error {
  constructor(
    message: string,
    readonly decisionCode: string,
  ) {
    super(message);
  }
}

const SAFE = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false'];
const IDENTITY = {
  GIT_AUTHOR_NAME: 'Agent Run Service',
  GIT_AUTHOR_EMAIL: 'agent@ars.local',
  GIT_COMMITTER_NAME: 'Agent Run Service',
  GIT_COMMITTER_EMAIL: 'agent@ars.local',
  GIT_TERMINAL_PROMPT: '0',
  GIT_CONFIG_NOSYSTEM: '1',
};

function decisionCode(error: KubernetesError): string {
  if (error.reason === 'init_failed') {
    if (error.message.includes('the repository could not be cloned')) return 'clone_failed';
    if (error.message.includes('the base branch')) return 'base_branch_missing';
    if (error.message.includes('the working branch')) return 'working_branch_missing';
    if (error.message.includes('the root directory')) return 'root_directory_missing';
    return 'clone_failed';
  }
  if (error.reason === 'timeout') return 'provision_timeout';
  return `kubernetes_${error.reason}`;
}

function localGit(args: string[], cwd: string, secrets: string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0' }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (!error) {
          resolve(stdout);
          return;
        }
        let text = `${stderr}`.trim() || error.message;
        for (const secret of secrets) if (secret) text = text.split(secret).join('***');
        reject(new Error(text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, '$1***@').split('\n').slice(-3).join(' ')));
      },
    );
  });
}

export class KubernetesProvider {
  readonly name = 'kubernetes' as const;
  readonly pods: KubernetesPods;

  constructor(
    private readonly settings: KubernetesSettings,
    options: { pollIntervalMs?: number } = {},
  ) {
    this.pods = new KubernetesPods({
      config: settings.config,
      namespace: settings.namespace,
      readyTimeoutMs: settings.readyTimeoutMs,
      ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
    });
  }

  /** Makes the Pod and waits until the repository is ready in it; on any failure the Pod is deleted again. */
  async allocate(request: KubernetesAllocateRequest): Promise<KubernetesSandbox> {
    const sandboxId = `k8s-${randomBytes(10).toString('hex')}`;
    let manifests;
    try {
      manifests = buildSandboxManifests({
        sandboxId,
        namespace: this.settings.namespace,
        image: this.settings.image,
        gitImage: this.settings.gitImage,
        resources: this.settings.resources,
        cloneUrl: request.cloneUrl,
        baseBranch: request.baseBranch,
        workingBranch: request.workingBranch,
        createBranch: request.createBranch ?? true,
        rootDirectory: request.rootDirectory,
        labels: { 'agent-run-service.dev/run-id': request.runId.replace(/[^A-Za-z0-9_.-]/g, '-').slice(0, 63).replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '') },
        ...(this.settings.serviceAccount !== undefined ? { serviceAccount: this.settings.serviceAccount } : {}),
        ...(this.settings.nodeSelector !== undefined ? { nodeSelector: this.settings.nodeSelector } : {}),
      });
    } catch (error) {
      if (error instanceof ManifestError) throw new KubernetesAllocationError(`the sandbox could not be described: ${error.message}`, 'invalid_request');
      throw error;
    }
    let pod: SandboxPod;
    try {
      pod = await this.pods.create(manifests);
    } catch (error) {
      if (error instanceof KubernetesError) throw new KubernetesAllocationError(error.message, decisionCode(error));
      throw error;
    }
    try {
      await pod.waitUntilRunning(request.signal ? { signal: request.signal } : {});
    } catch (error) {
      await pod.delete().catch(() => undefined);
      if (error instanceof KubernetesError && error.reason !== 'aborted') throw new KubernetesAllocationError(error.message, decisionCode(error));
      throw error;
    }
    return { sandboxId, pod, repoDir: REPO_DIR, cwd: manifests.workingDir, home: HOME_DIR };
  }

  /** Commits every change in the Pod's working tree (when there is one) and pushes it to the working branch from this machine. */
  async commitAndPush(request: KubernetesPushRequest): Promise<{ committed: boolean; commit: string }> {
    const { pod } = request.sandbox;
    const run = async (args: string[], stdout?: (chunk: Buffer) => void): Promise<string> => {
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      const result = await pod.exec(['git', ...SAFE, ...args], {
        cwd: REPO_DIR,
        env: IDENTITY,
        onStdout: stdout ?? ((chunk) => out.push(chunk)),
        onStderr: (chunk) => err.push(chunk),
      });
      if (result.exitCode !== 0) {
        throw new KubernetesError('exec_failed', `git ${args[0]} failed in the sandbox (exit ${result.exitCode}): ${Buffer.concat(err).toString('utf8').trim().split('\n').slice(-3).join(' ')}`);
      }
      return Buffer.concat(out).toString('utf8');
    };
    await run(['add', '-A']);
    const committed = (await run(['status', '--porcelain'])).trim().length > 0;
    if (committed) await run(['commit', '--quiet', '--no-verify', '-m', request.commitMessage]);
    const commit = (await run(['rev-parse', 'HEAD'])).trim();

    const local = await mkdtemp(join(tmpdir(), 'ars-k8s-push-'));
    try {
      const bundle = join(local, 'out.bundle');
      const file = createWriteStream(bundle);
      await run(['bundle', 'create', '--quiet', '-', 'HEAD'], (chunk) => file.write(chunk));
      await new Promise<void>((resolve, reject) => file.end((error?: Error | null) => (error ? reject(error) : resolve())));
      const clean = join(local, 'clean.git');
      await localGit(['init', '--quiet', '--bare', clean], local);
      await localGit(['fetch', '--quiet', '--no-tags', bundle, `+HEAD:refs/heads/${request.workingBranch}`], clean);
      await localGit(['push', '--quiet', '--', request.pushUrl, `refs/heads/${request.workingBranch}:refs/heads/${request.workingBranch}`], clean, [request.pushUrl]);
    } finally {
      await rm(local, { recursive: true, force: true });
    }
    return { committed, commit };
  }

  /** Deletes the sandbox's Pod and Secret (safe twice; by the id a session recorded). */
  async release(sandboxId: string): Promise<void> {
    await this.pods.attach(sandboxId, `${sandboxId}-clone`, REPO_DIR).delete();
  }
}
