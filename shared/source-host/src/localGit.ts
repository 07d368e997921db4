import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { PullRequestFile, PullRequestFileStatus } from './sourceHost.js';

const run = promisify(execFile);

/** The git CLI with the service's identity, by argument vector (never a shell string); `input` its stdin. */
export async function git(args: string[], cwd?: string, input?: string | Buffer): Promise<string> {
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'Agent Run Service',
    GIT_AUTHOR_EMAIL: 'dev@agent-run.local',
    GIT_COMMITTER_NAME: 'Agent Run Service',
    GIT_COMMITTER_EMAIL: 'dev@agent-run.local',
  };
  const child = run('git', args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
  if (input !== undefined) {
    child.child.stdin?.end(input);
  }
  const { stdout } = await child;
  return stdout;
}

/** The commit a ref or SHA names in the repository, or null when it names none. */
export async function resolveCommit(repoPath: string, ref: string): Promise<string | null> {
  if (ref.startsWith('-')) return null;
  try {
    return (await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], repoPath)).trim() || null;
  } catch {
    return null;
  }
}

/**
 * The tip of each of `branches` that exists, by name: one `git for-each-ref` for all of them. Its
 * patterns also list the refs below a slash (`topic` lists `topic/next`): those are under their own names.
 */
export async function branchTips(repoPath: string, branches: readonly string[]): Promise<Map<string, string>> {
  const listing = await git(['for-each-ref', '--format=%(objectname) %(refname:strip=2)', '--', ...branches.map((branch) => `refs/heads/${branch}`)], repoPath);
  const tips = new Map<string, string>();
  for (const line of listing.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) tips.set(line.slice(space + 1), line.slice(0, space));
  }
  return tips;
}

/** The largest file `fileContent` answers, in bytes. */
export const MAX_FILE_BYTES = 1_000_000;

/**
 * A regular file's text at a commit, or null when the path names nothing there, a directory, a
 * symlink or a submodule, or a file over `MAX_FILE_BYTES`. The path is `/`-separated from the
 * repository's root; a `.` or `..` segment, an empty segment or a NUL answers null. The entry is
 * found by its exact name in its parent tree (`git ls-tree`, no pathspec matching).
 */
export async function fileAt(repoPath: string, commit: string, path: string): Promise<string | null> {
  const segments = path.split('/');
  if (path.includes('\0') || segments.some((s) => s === '' || s === '.' || s === '..')) return null;
  const name = segments.pop() ?? '';
  let listing: string;
  try {
    listing = await git(['ls-tree', '-z', '--long', `${commit}:${segments.join('/')}`], repoPath);
  } catch {
    return null; // the parent directory is missing (or is a file)
  }
  // `<mode> SP <type> SP <object> SP+ <size> TAB <name>` per entry, NUL-terminated.
  for (const entry of listing.split('\0')) {
    const tab = entry.indexOf('\t');
    if (tab === -1 || entry.slice(tab + 1) !== name) continue;
    const [mode = '', type = '', object = '', size = ''] = entry.slice(0, tab).split(/ +/);
    if (type !== 'blob' || (mode !== '100644' && mode !== '100755') || Number(size) > MAX_FILE_BYTES) return null;
    return git(['cat-file', 'blob', object], repoPath);
  }
  return null;
}

/** Writes a commit on `branch` straight into a bare repository (no worktree): `files` its whole tree, no parent. */
export async function commitFiles(repoPath: string, branch: string, files: Record<string, string>, message: string): Promise<string> {
  for (const filePath of Object.keys(files)) {
    if (filePath.includes('/')) throw new Error(`nested paths are not supported in seed files: ${filePath}`);
  }
  return importCommit(repoPath, branch, null, files, message);
}

/** `git diff base...head`: what the head branch changed since it left the base (renames found). */
export async function diffText(repoPath: string, baseSha: string, headSha: string): Promise<string> {
  return git(['diff', '-M', '--no-color', '--no-ext-diff', `${baseSha}...${headSha}`], repoPath);
}

const STATUS: Record<string, PullRequestFileStatus> = { A: 'added', D: 'removed', M: 'modified', R: 'renamed', C: 'copied', T: 'changed' };

/** The changed files of `base...head` as GitHub lists a pull request's files, each with its hunks. */
export async function diffFiles(repoPath: string, baseSha: string, headSha: string): Promise<PullRequestFile[]> {
  const range = `${baseSha}...${headSha}`;
  const [nameStatus, numstat, text] = await Promise.all([
    git(['diff', '-M', '--name-status', '-z', range], repoPath),
    git(['diff', '-M', '--numstat', '-z', range], repoPath),
    diffText(repoPath, baseSha, headSha),
  ]);
  // --name-status -z: `M\0path\0` or `R100\0old\0new\0`; --numstat -z: `a\td\tpath\0` or `a\td\t\0old\0new\0`.
  const names = nameStatus.split('\0');
  const counts = numstat.split('\0');
  const sections = text.split(/^(?=diff --git )/m).filter((s) => s.startsWith('diff --git '));
  const files: PullRequestFile[] = [];
  let n = 0;
  let c = 0;
  while (n < names.length - 1) {
    const code = names[n] ?? '';
    const renamed = code.startsWith('R') || code.startsWith('C');
    const path = (renamed ? names[n + 2] : names[n + 1]) ?? '';
    n += renamed ? 3 : 2;
    const [additions = '0', deletions = '0', inline = ''] = (counts[c] ?? '').split('\t');
    c += inline === '' ? 3 : 1;
    const section = sections[files.length] ?? '';
    const hunks = section.indexOf('\n@@');
    files.push({
      path,
      status: STATUS[code.charAt(0)] ?? 'modified',
      additions: Number(additions) || 0,
      deletions: Number(deletions) || 0,
      patch: hunks === -1 ? null : section.slice(hunks + 1).replace(/\n$/, ''),
    });
  }
  return files;
}

/**
 * Writes a commit on `branch` whose parent is the tip of `from` (a branch or SHA), with `files`
 * (paths may be nested) changed on top of its tree, straight into a bare repository (no worktree).
 * The branch is created or moved to it. Returns the new commit.
 */
export async function commitOnto(repoPath: string, branch: string, from: string, files: Record<string, string>, message: string): Promise<string> {
  const parent = await resolveCommit(repoPath, from);
  if (parent === null) throw new Error(`${from} names no commit`);
  return importCommit(repoPath, branch, parent, files, message);
}

const IDENTITY = 'Agent Run Service <dev@agent-run.local>';

/**
 * One commit by one `git fast-import` (one process, where the plumbing took one per file and four
 * more): its blobs, the commit on `parent` (or none) with `files` changed, and `branch` moved to it
 * whatever it held (`--force`, as `update-ref` did). Its answer to `get-mark` is the commit's id.
 */
async function importCommit(repoPath: string, branch: string, parent: string | null, files: Record<string, string>, message: string): Promise<string> {
  const chunks: Buffer[] = [];
  const data = (text: string): void => {
    const bytes = Buffer.from(text, 'utf8');
    chunks.push(Buffer.from(`data ${bytes.length}\n`), bytes, Buffer.from('\n'));
  };
  const paths = Object.keys(files);
  paths.forEach((filePath, i) => {
    chunks.push(Buffer.from(`blob\nmark :${i + 1}\n`));
    data(files[filePath] ?? '');
  });
  const commitMark = paths.length + 1;
  const when = `${Math.floor(Date.now() / 1000)} +0000`;
  chunks.push(Buffer.from(`commit refs/heads/${branch}\nmark :${commitMark}\nauthor ${IDENTITY} ${when}\ncommitter ${IDENTITY} ${when}\n`));
  data(message);
  if (parent !== null) chunks.push(Buffer.from(`from ${parent}\n`));
  paths.forEach((filePath, i) => chunks.push(Buffer.from(`M 100644 :${i + 1} ${quotedPath(filePath)}\n`)));
  chunks.push(Buffer.from(`\nget-mark :${commitMark}\n`));
  const answer = await git(['fast-import', '--quiet', '--force', '--date-format=raw'], repoPath, Buffer.concat(chunks));
  const commit = answer.trim().split('\n').at(-1) ?? '';
  if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new Error(`git fast-import answered no commit id: ${answer.slice(0, 200)}`);
  return commit;
}

/** A path as fast-import reads it: C-style quoted when it starts with `"` or holds a newline or a backslash. */
function quotedPath(path: string): string {
  if (!/^"|[\n\\]/.test(path)) return path;
  return `"${path.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}
