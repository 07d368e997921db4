// The local provider: one directory per sandbox under SANDBOX_ROOT, the repository cloned with the
// git CLI, branches checked out, the push made from a clean repository outside the sandbox.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { relativePathProblem } from '@ars/git-refs';
import { withoutCredentials } from '../domain/credentials.js';
import { GitError, git, refExists } from './git.js';
import { killProcessesWorkingIn } from './processesInDirectory.js';
import { AllocationError, type AllocateRequest, type AllocatedSandbox, type PushRequest, type PushResult, type SandboxProvider } from './provider.js';

/** Git settings for commands this service runs inside a tree the agent controlled: no hooks, no fsmonitor. */
const SAFE = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false'];

export class LocalProvider implements SandboxProvider {
  readonly name = 'local' as const;
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  async allocate(request: AllocateRequest): Promise<AllocatedSandbox> {
    const sandboxId = `local-${randomBytes(10).toString('hex')}`;
    await mkdir(this.root, { recursive: true });
    const dir = join(await realpath(this.root), sandboxId);
    const repoDir = join(dir, 'repo');
    const home = join(dir, 'home');
    await mkdir(home, { recursive: true });
    try {
      await writeFile(join(home, '.gitconfig'), '[user]\n\tname = Agent Run Service\n\temail = agent@ars.local\n');
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
      if (request.workingBranch !== request.baseBranch) {
        if (await refExists(repoDir, `refs/remotes/origin/${request.workingBranch}`, signal)) {
          await git(['checkout', '--quiet', '-B', request.workingBranch, `refs/remotes/origin/${request.workingBranch}`], { cwd: repoDir, signal });
        } else {
          await git(['checkout', '--quiet', '-b', request.workingBranch], { cwd: repoDir, signal });
        }
      }
      const cwd = await this.rootDirectory(repoDir, request);
      return { sandboxId, dir, repoDir, cwd, home };
    } catch (error) {
      await this.release(dir);
      throw error;
    }
  }

  async commitAndPush(request: PushRequest): Promise<PushResult> {
    const { repoDir } = request;
    await git([...SAFE, 'add', '-A'], { cwd: repoDir });
    const status = await git([...SAFE, 'status', '--porcelain'], { cwd: repoDir });
    const committed = status.trim().length > 0;
    if (committed) await git([...SAFE, 'commit', '--quiet', '--no-verify', '-m', request.commitMessage], { cwd: repoDir });
    const commit = (await git(['rev-parse', 'HEAD'], { cwd: repoDir })).trim();
    // Push from a clean repository of our own: the sandbox's git config is the agent's to change
    // (hooks, url rewrites) and the fresh URL may carry a token.
    const clean = await mkdtemp(join(this.root, '.push-'));
    try {
      await git(['init', '--quiet', '--bare', clean]);
      await git(['fetch', '--quiet', '--no-tags', repoDir, `+HEAD:refs/heads/${request.workingBranch}`], { cwd: clean });
      await git(['push', '--quiet', '--', request.pushUrl, `refs/heads/${request.workingBranch}:refs/heads/${request.workingBranch}`], {
        cwd: clean,
        secrets: [request.pushUrl],
      });
    } finally {
      await rm(clean, { recursive: true, force: true });
    }
    return { committed, commit };
  }

  async release(dir: string): Promise<void> {
    const target = resolve(dir);
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
