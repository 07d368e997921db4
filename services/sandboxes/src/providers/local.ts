// The local provider: one directory per sandbox under SANDBOX_ROOT, the repository cloned with the
// git CLI, branches checked out, commands run as local processes in their own process groups, the
// push made from a clean repository outside the sandbox.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, relative, resolve, sep } from 'node:path';
import { relativePathProblem } from '@ars/git-refs';
import { withoutCredentials } from '../domain/credentials.js';
import { GitError, git, pushFromCleanRepository, refExists } from './git.js';
import { killProcessesWorkingIn } from './processesInDirectory.js';
import {
  AllocationError,
  type AllocateRequest,
  type AllocatedSandbox,
  type ExecRequest,
  type ExecResult,
  type HarnessLaunch,
  type HarnessLaunchRequest,
  type PreviewEndpoint,
  type PushRequest,
  type PushResult,
  type SandboxProvider,
  type SandboxRef,
} from './provider.js';
import { archive, extract } from './tar.js';

/** Git settings for commands this service runs inside a tree the agent controlled: no hooks, no fsmonitor. */
const SAFE = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false'];
const GITCONFIG = '[user]\n\tname = Agent Run Service\n\temail = agent@ars.local\n';

export interface LocalProviderOptions {
  /** How long an aborted command has between TERM and KILL. */
  killGraceMs?: number;
}

export class LocalProvider implements SandboxProvider {
  readonly name = 'local' as const;
  private readonly root: string;
  private readonly killGraceMs: number;

  constructor(root: string, options: LocalProviderOptions = {}) {
    this.root = resolve(root);
    this.killGraceMs = options.killGraceMs ?? 5_000;
  }

  async allocate(request: AllocateRequest): Promise<AllocatedSandbox> {
    const sandboxId = `local-${randomBytes(10).toString('hex')}`;
    await mkdir(this.root, { recursive: true });
    const dir = join(await realpath(this.root), sandboxId);
    const repoDir = join(dir, 'repo');
    const home = join(dir, 'home');
    await mkdir(dir, { recursive: true });
    try {
      if (request.restoreFrom !== undefined) await this.restore(dir, repoDir, request.restoreFrom);
      else await this.checkout(repoDir, request);
      await mkdir(home, { recursive: true });
      await writeFile(join(home, '.gitconfig'), GITCONFIG);
      const cwd = await this.rootDirectory(repoDir, request);
      return { sandboxId, dir, repoDir, cwd, home };
    } catch (error) {
      await this.release({ sandboxId, dir });
      throw error;
    }
  }

  exec(_sandbox: AllocatedSandbox, request: ExecRequest): Promise<ExecResult> {
    return new Promise((resolvePromise) => {
      if (request.signal?.aborted) {
        resolvePromise({ exitCode: null, aborted: true });
        return;
      }
      // A process group of its own, so an abort reaches whatever the command started (npm → node).
      const child = spawn('/bin/sh', ['-c', request.command], { cwd: request.cwd, env: request.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      let aborted = false;
      let killTimer: NodeJS.Timeout | undefined;
      const signalGroup = (signal: NodeJS.Signals): void => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, signal);
        } catch {
          // already gone
        }
      };
      const onAbort = (): void => {
        aborted = true;
        signalGroup('SIGTERM');
        killTimer = setTimeout(() => signalGroup('SIGKILL'), this.killGraceMs);
        killTimer.unref();
      };
      request.signal?.addEventListener('abort', onAbort, { once: true });
      child.stdout.on('data', (chunk: Buffer) => request.onOutput(chunk));
      child.stderr.on('data', (chunk: Buffer) => request.onOutput(chunk));
      const done = (exitCode: number | null): void => {
        request.signal?.removeEventListener('abort', onAbort);
        if (killTimer) clearTimeout(killTimer);
        resolvePromise({ exitCode, aborted });
      };
      child.on('error', (error) => {
        request.onOutput(Buffer.from(`${error.message}\n`));
        done(127);
      });
      child.on('close', (code, signal) => done(code ?? (signal ? 128 + signalNumber(signal) : null)));
    });
  }

  async previewEndpoint(): Promise<PreviewEndpoint> {
    const port = await freeLocalPort();
    return { port, url: `http://127.0.0.1:${port}` };
  }

  launchHarness(_sandbox: AllocatedSandbox, request: HarnessLaunchRequest): Promise<HarnessLaunch> {
    // The sandbox is a directory on this machine: the SDK spawns the CLI right here.
    return Promise.resolve({ executablePath: request.executablePath, env: request.env, cwd: request.cwd, close: () => Promise.resolve() });
  }

  async commitAndPush(sandbox: AllocatedSandbox, request: PushRequest): Promise<PushResult> {
    const { repoDir } = sandbox;
    await git([...SAFE, 'add', '-A'], { cwd: repoDir });
    const status = await git([...SAFE, 'status', '--porcelain'], { cwd: repoDir });
    const committed = status.trim().length > 0;
    if (committed) await git([...SAFE, 'commit', '--quiet', '--no-verify', '-m', request.commitMessage], { cwd: repoDir });
    const commit = (await git(['rev-parse', 'HEAD'], { cwd: repoDir })).trim();
    await pushFromCleanRepository(repoDir, request.workingBranch, request.pushUrl, this.root);
    return { committed, commit };
  }

  async snapshot(sandbox: AllocatedSandbox, file: string): Promise<{ bytes: number }> {
    if (!sandbox.dir) throw new Error('a local sandbox without a directory cannot be snapshotted');
    await archive(sandbox.dir, file);
    return { bytes: (await stat(file)).size };
  }

  async release(sandbox: SandboxRef): Promise<void> {
    if (!sandbox.dir) return;
    const target = resolve(sandbox.dir);
    const roots = [this.root, await realpath(this.root).catch(() => this.root)];
    // Only ever a sandbox directory right under our own root (a path recorded under another configuration is left alone).
    const ours = roots.some((root) => {
      const rel = relative(root, target);
      return rel !== '' && !rel.startsWith('..') && !rel.includes(sep);
    });
    if (!ours) return;
    // Nothing the agent started outlives its sandbox (the directory is about to go anyway).
    await killProcessesWorkingIn(target);
    await rm(target, { recursive: true, force: true });
  }

  private async checkout(repoDir: string, request: AllocateRequest): Promise<void> {
    const { signal } = request;
    try {
      await git(['clone', '--quiet', '--', request.cloneUrl, repoDir], { signal, secrets: [request.cloneUrl] });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new AllocationError(`the repository could not be cloned: ${error instanceof GitError ? error.message : String(error)}`, 'clone_failed');
    }
    // The token (if any) must not stay where the agent can read it.
    await git(['remote', 'set-url', 'origin', withoutCredentials(request.cloneUrl)], { cwd: repoDir, signal });

    if (!(await refExists(repoDir, `refs/remotes/origin/${request.baseBranch}`, signal))) {
      throw new AllocationError(`the base branch "${request.baseBranch}" does not exist in the repository`, 'base_branch_missing');
    }
    await git(['checkout', '--quiet', '-B', request.baseBranch, `refs/remotes/origin/${request.baseBranch}`], { cwd: repoDir, signal });
    if (request.workingBranch === request.baseBranch) return;
    if (await refExists(repoDir, `refs/remotes/origin/${request.workingBranch}`, signal)) {
      await git(['checkout', '--quiet', '-B', request.workingBranch, `refs/remotes/origin/${request.workingBranch}`], { cwd: repoDir, signal });
    } else {
      await git(['checkout', '--quiet', '-b', request.workingBranch], { cwd: repoDir, signal });
    }
  }

  private async restore(dir: string, repoDir: string, file: string): Promise<void> {
    try {
      await extract(file, dir);
    } catch (error) {
      throw new AllocationError(`the snapshot could not be restored: ${error instanceof Error ? error.message : String(error)}`, 'snapshot_restore_failed');
    }
    const info = await stat(join(repoDir, '.git')).catch(() => null);
    if (!info) throw new AllocationError('the snapshot could not be restored: it holds no repository', 'snapshot_restore_failed');
  }

  private async rootDirectory(repoDir: string, request: AllocateRequest): Promise<string> {
    const rootDirectory = request.rootDirectory;
    if (rootDirectory === null || rootDirectory === '' || rootDirectory === '.') return repoDir;
    const problem = relativePathProblem(rootDirectory);
    if (problem) throw new AllocationError(`the root directory ${problem}`, 'root_directory_invalid');
    const missing = new AllocationError(
      `the root directory "${rootDirectory}" does not exist in the repository on branch "${request.workingBranch}"`,
      'root_directory_missing',
    );
    const candidate = join(repoDir, rootDirectory);
    const real = await realpath(candidate).catch(() => null);
    if (real === null) throw missing;
    const inside = relative(repoDir, real);
    if (inside.startsWith('..') || resolve(repoDir, inside) !== real) throw missing;
    const info = await stat(real).catch(() => null);
    if (!info?.isDirectory()) throw missing;
    return real;
  }
}

function signalNumber(signal: NodeJS.Signals): number {
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  return numbers[signal] ?? 0;
}

/** A port nothing listens on right now (the OS picks it). */
export function freeLocalPort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}
