import { execFile } from 'node:child_process';
import { mkdir, readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { InstallationRef, SourceHost, SourceHostRepository } from './sourceHost.js';

const run = promisify(execFile);

export interface LocalRepository {
  fullName: string;
  defaultBranch: string;
  /** A `file://` URL git can clone and push to. */
  cloneUrl: string;
  path: string;
}

export interface NewLocalRepository {
  owner: string;
  name: string;
  defaultBranch?: string;
  /** Files of the first commit, by path. */
  files?: Record<string, string>;
}

const NAME_PART = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * The development source host: real bare git repositories on disk, one per `owner/name`, each with
 * a default branch and at least one commit, so sandboxes can clone them and push branches back.
 */
export class LocalSourceHost implements SourceHost {
  readonly provider = 'local' as const;

  constructor(private readonly root: string) {}

  /** The repositories under `<root>/<account>/`, by name, each with the branch its HEAD names. */
  async listRepositories(installation: InstallationRef): Promise<SourceHostRepository[]> {
    if (!NAME_PART.test(installation.account)) return [];
    const dir = join(this.root, installation.account);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    const repositories: SourceHostRepository[] = [];
    for (const entry of entries.filter((e) => e.isDirectory() && e.name.endsWith('.git')).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      const head = await readFile(join(path, 'HEAD'), 'utf8').catch(() => '');
      const branch = /^ref: refs\/heads\/(.+)$/m.exec(head)?.[1] ?? null;
      repositories.push({ fullName: `${installation.account}/${entry.name.slice(0, -4)}`, defaultBranch: branch, cloneUrl: `file://${path}` });
    }
    return repositories;
  }

  /** Local repositories need no credentials: the `file://` URL itself. */
  async authenticatedCloneUrl(_installation: InstallationRef, repository: { cloneUrl: string }): Promise<string> {
    return repository.cloneUrl;
  }

  async createRepository(input: NewLocalRepository): Promise<LocalRepository> {
    for (const part of [input.owner, input.name]) {
      if (!NAME_PART.test(part) || part.endsWith('.git') || part.includes('..')) throw new Error(`invalid repository name part: ${part}`);
    }
    const defaultBranch = input.defaultBranch ?? 'main';
    const path = join(this.root, input.owner, `${input.name}.git`);
    await mkdir(join(this.root, input.owner), { recursive: true });
    await rm(path, { recursive: true, force: true });
    await git(['init', '--quiet', '--bare', `--initial-branch=${defaultBranch}`, path]);
    const files = input.files ?? { 'README.md': `# ${input.owner}/${input.name}\n` };
    await commitFiles(path, defaultBranch, files, 'Initial commit');
    return { fullName: `${input.owner}/${input.name}`, defaultBranch, cloneUrl: `file://${path}`, path };
  }
}

/** Writes a commit on `branch` straight into a bare repository with git's plumbing (no worktree). */
async function commitFiles(repoPath: string, branch: string, files: Record<string, string>, message: string): Promise<string> {
  const entries: string[] = [];
  for (const [filePath, content] of Object.entries(files)) {
    if (filePath.includes('/')) throw new Error(`nested paths are not supported in seed files: ${filePath}`);
    const blob = (await git(['hash-object', '-w', '--stdin'], repoPath, content)).trim();
    entries.push(`100644 blob ${blob}\t${filePath}`);
  }
  const tree = (await git(['mktree'], repoPath, `${entries.join('\n')}\n`)).trim();
  const commit = (await git(['commit-tree', tree, '-m', message], repoPath)).trim();
  await git(['update-ref', `refs/heads/${branch}`, commit], repoPath);
  return commit;
}

async function git(args: string[], cwd?: string, input?: string): Promise<string> {
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'Agent Run Service',
    GIT_AUTHOR_EMAIL: 'dev@agent-run.local',
    GIT_COMMITTER_NAME: 'Agent Run Service',
    GIT_COMMITTER_EMAIL: 'dev@agent-run.local',
  };
  const child = run('git', args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
  if (input !== undefined) {
    child.child.stdin?.end(input);
  }
  const { stdout } = await child;
  return stdout;
}
