// Pull requests of a GitHub App installation whose repository is really clonable: the GitHub
// stand-in serves no git, so the repository is a local bare repository (`LocalSourceHost`) whose
// `file://` URL the stand-in answers as its `clone_url`; a working clone commits and pushes with the
// git CLI, and the stand-in's pull requests are kept in step with the bare repository (head and base
// SHAs, files with patches, every file of the head and base commits for `GET …/contents`).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { GitHubStandIn, StandInPullRequestFile } from '@ars/github-stand-in';
import { LocalSourceHost, type RepositoryRef } from '@ars/source-host';
import { workingClone } from './workingClone.js';

const DEFAULT_BRANCH = 'main';

export interface MirroredRepo {
  /** `owner/name` as on the stand-in. */
  fullName: string;
  /** The `file://` URL of the bare repository: the repository's `clone_url` on the stand-in. */
  cloneUrl: string;
  /** Runs git in the working clone (argument vector, no shell); its output trimmed. */
  git(...args: string[]): string;
  /** Writes the files, commits them on the current branch and pushes it; the new commit's SHA. */
  commitAndPush(files: Record<string, string>, message: string): string;
  /**
   * Opens the pull request on the stand-in from `head` into the default branch: head/base SHAs from
   * git, files (with patches) and every file's content at both SHAs (setCommitFiles) computed from
   * the bare repo. Returns its number.
   */
  openPullRequest(head: string, title: string): Promise<number>;
  /**
   * After a commitAndPush on the head branch: the stand-in's pushHead with the new SHA and files,
   * plus setCommitFiles for the new head. Returns the new head SHA (the one before is what
   * `getPullRequest` answered, or the stand-in's `pullRequest(…).head.sha`, before this call).
   */
  syncHead(number: number): Promise<string>;
}

/**
 * A bare repository `<dir>/<owner>/<name>.git` (default branch `main`, a first commit of `files`:
 * top-level paths only, as `createRepository` takes them; later commits may nest)
 * registered on the stand-in in installation `installationId` with its `file://` URL as `clone_url`
 * (added beside the installation's other repositories), and a working clone of it under
 * `<dir>/.clones/`. Mirror a given `owner/name` once per stand-in.
 */
export async function mirroredRepo(
  github: GitHubStandIn,
  options: { dir: string; owner: string; name: string; installationId: number; files?: Record<string, string> },
): Promise<MirroredRepo> {
  const { dir, owner, name, installationId } = options;
  const local = new LocalSourceHost(dir);
  const created = await local.createRepository({ owner, name, defaultBranch: DEFAULT_BRANCH, ...(options.files ? { files: options.files } : {}) });
  const { fullName, cloneUrl, path: bare } = created;
  github.addInstallation(installationId, [{ owner, name, defaultBranch: DEFAULT_BRANCH, cloneUrl }]);
  // The local host's own pull requests give the files exactly as it lists them (`git diff -M base...head`).
  const ref: RepositoryRef = { installation: { account: owner, externalId: null }, fullName };

  // `.clones` cannot be an account of the local host (names start with a letter or digit).
  const work = join(dir, '.clones', owner, name);
  const clone = workingClone(cloneUrl, work);
  /** git in the bare repository, its output untouched (file contents keep their last newline). */
  const bareGit = (...args: string[]): string => execFileSync('git', args, { cwd: bare, stdio: 'pipe', maxBuffer: 64 * 1024 * 1024 }).toString('utf8');
  const commitOf = (branch: string): string => bareGit('rev-parse', '--verify', `refs/heads/${branch}^{commit}`).trim();

  /** Every file of the commit by path, as `setCommitFiles` takes it. */
  const treeOf = (sha: string): Record<string, string> => {
    const files: Record<string, string> = {};
    for (const path of bareGit('ls-tree', '-r', '-z', '--name-only', sha).split('\0')) {
      if (path !== '') files[path] = bareGit('show', `${sha}:${path}`);
    }
    return files;
  };
  /** The files of the local pull request as the stand-in takes them (counts from git's numstat). */
  const filesOf = async (localNumber: number): Promise<StandInPullRequestFile[]> =>
    (await local.listPullRequestFiles(ref, localNumber)).map((f) => ({
      filename: f.path,
      status: f.status,
      additions: f.additions,
      deletions: f.deletions,
      patch: f.patch,
    }));
  /** Stand-in pull request number → the local one beside it (and its head branch). */
  const mirrored = new Map<number, { localNumber: number; head: string }>();

  return {
    fullName,
    cloneUrl,
    ...clone,
    async openPullRequest(head, title) {
      const localPr = await local.openPullRequest(fullName, { head, base: DEFAULT_BRANCH, title });
      const headSha = commitOf(head);
      const baseSha = commitOf(DEFAULT_BRANCH);
      const files = await filesOf(localPr.number);
      github.setCommitFiles(fullName, baseSha, treeOf(baseSha));
      github.setCommitFiles(fullName, headSha, treeOf(headSha));
      const number = github.openPullRequest(fullName, { title, head: { ref: head, sha: headSha }, base: { ref: DEFAULT_BRANCH, sha: baseSha }, files });
      mirrored.set(number, { localNumber: localPr.number, head });
      return number;
    },
    async syncHead(number) {
      const pr = mirrored.get(number);
      if (!pr) throw new Error(`${fullName}#${number} was not opened through this mirror`);
      const headSha = commitOf(pr.head);
      const files = await filesOf(pr.localNumber);
      github.setCommitFiles(fullName, headSha, treeOf(headSha));
      github.pushHead(fullName, number, { sha: headSha, files });
      return headSha;
    },
  };
}
