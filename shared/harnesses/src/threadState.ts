// What a harness needs to resume a thread in another sandbox (another HOME, maybe another
// working-directory path): the thread's own files under HOME, as plain data. Only the thread's
// transcript files are taken, never the CLIs' credentials or settings (auth.json,
// .credentials.json, config.toml); their content is still what the agent saw and said, so the
// caller sanitizes it before storing it.
import { lstat, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { HarnessName } from './adapter.js';
import { claudeProjectDirName, findCodexRollout, isThreadId } from '@ars/harness-thread-files';

export interface ThreadFile {
  /** Relative to HOME, `/`-separated, no `.`/`..` segments. */
  path: string;
  /** UTF-8 text (both CLIs keep threads as JSONL). */
  content: string;
}

/** Where the thread is: `cwd` is the working directory as the harness saw it. */
export interface ThreadLocation {
  home: string;
  cwd: string;
  threadId: string;
}

/** The thread state kept per thread, all files together: beyond it collect and restore refuse. */
export const MAX_THREAD_STATE_BYTES = 4 * 1024 * 1024;

/** Where each harness keeps its threads, relative to HOME (CODEX_HOME and CLAUDE_CONFIG_DIR at their defaults). */
const CODEX_HOME_DIR = '.codex';
const CODEX_SESSIONS = `${CODEX_HOME_DIR}/sessions`;
const CLAUDE_PROJECTS = '.claude/projects';

export class ThreadStateError extends Error {}

/** A thread over MAX_THREAD_STATE_BYTES: a cut transcript would not resume, so it is not kept at all. */
export class ThreadTooLargeError extends ThreadStateError {}

/**
 * The files of thread `threadId` under `home`: codex its rollout
 * (`.codex/sessions/YYYY/MM/DD/rollout-…-<id>.jsonl`); Claude Code its transcript
 * (`.claude/projects/<cwd encoded>/<id>.jsonl`, looked for in the other project folders when the
 * cwd's has none) and the session's folder beside it (subagent transcripts, large tool results).
 * `[]` when the harness kept nothing. Throws ThreadStateError for an id that is not a plain name
 * or state over MAX_THREAD_STATE_BYTES.
 */
export async function collectThreadState(harness: HarnessName, where: ThreadLocation): Promise<ThreadFile[]> {
  if (!isThreadId(where.threadId)) throw new ThreadStateError(`not a thread id: ${JSON.stringify(where.threadId)}`);
  const paths = harness === 'codex' ? await codexThreadPaths(where) : await claudeThreadPaths(where);
  const files: ThreadFile[] = [];
  let total = 0;
  for (const path of paths) {
    const content = await readFile(path, 'utf8');
    total += Buffer.byteLength(content, 'utf8');
    if (total > MAX_THREAD_STATE_BYTES) throw tooLarge(where.threadId);
    files.push({ path: relative(where.home, path).split(sep).join('/'), content });
  }
  return files;
}

async function codexThreadPaths(where: ThreadLocation): Promise<string[]> {
  const rollout = await findCodexRollout(join(where.home, CODEX_HOME_DIR), where.threadId);
  return rollout === null ? [] : [rollout];
}

async function claudeThreadPaths(where: ThreadLocation): Promise<string[]> {
  const projects = join(where.home, CLAUDE_PROJECTS);
  const transcript = `${where.threadId}.jsonl`;
  const own = claudeProjectDirName(where.cwd);
  const others = (await directoryNames(projects)).filter((name) => name !== own).sort();
  for (const project of [own, ...others]) {
    const dir = join(projects, project);
    if (!(await isRegularFile(join(dir, transcript)))) continue;
    return [join(dir, transcript), ...(await regularFilesUnder(join(dir, where.threadId)))];
  }
  return [];
}

async function directoryNames(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return [];
  }
}

async function isRegularFile(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isFile();
  } catch {
    return false;
  }
}

/** Regular files only, depth first, in name order: symbolic links are not followed out of HOME. */
async function regularFilesUnder(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isFile()) files.push(path);
    else if (entry.isDirectory()) files.push(...(await regularFilesUnder(path)));
  }
  return files;
}

function tooLarge(threadId: string): ThreadStateError {
  return new ThreadTooLargeError(`the state of thread ${threadId} is over ${MAX_THREAD_STATE_BYTES} bytes`);
}

/**
 * Writes `files` (from collectThreadState) under `home` so that resuming the thread with working
 * directory `cwd` finds them: Claude Code's project folder is renamed for `cwd`. Refuses, writing
 * nothing, a path that is absolute, has `.`/`..`/empty segments or lies outside the harness's
 * own thread folder (`.codex/sessions/`, `.claude/projects/<folder>/`), and state over
 * MAX_THREAD_STATE_BYTES. Existing files of the same path are replaced.
 */
export async function restoreThreadState(harness: HarnessName, files: readonly ThreadFile[], where: { home: string; cwd: string }): Promise<void> {
  for (const target of restoredThreadFiles(harness, files, where.cwd)) {
    await refuseSymbolicLinks(where.home, target.path);
    const full = join(where.home, ...target.path.split('/'));
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, target.content, 'utf8');
  }
}

/**
 * The files restoreThreadState writes, at their paths relative to HOME for working directory `cwd`
 * (for a HOME that is not a local directory: a Pod's). Throws ThreadStateError as restoreThreadState does.
 */
export function restoredThreadFiles(harness: HarnessName, files: readonly ThreadFile[], cwd: string): ThreadFile[] {
  const total = files.reduce((sum, file) => sum + Buffer.byteLength(file.content, 'utf8'), 0);
  if (total > MAX_THREAD_STATE_BYTES) throw tooLarge('(restored)');
  return files.map((file) => ({ path: restoredPath(harness, file.path, cwd), content: file.content }));
}

/** The folders under HOME where each harness keeps its threads: all collectThreadState looks at. */
export const THREAD_HOME_ROOTS: Record<HarnessName, string> = { codex: CODEX_SESSIONS, 'claude-code': CLAUDE_PROJECTS };

/** A symbolic link already on the way (in a HOME that is not fresh) would carry the write out of HOME. */
async function refuseSymbolicLinks(home: string, path: string): Promise<void> {
  let current = home;
  for (const segment of path.split('/')) {
    current = join(current, segment);
    let isLink: boolean;
    try {
      isLink = (await lstat(current)).isSymbolicLink();
    } catch {
      return; // Not there yet: nothing below it exists either.
    }
    if (isLink) throw new ThreadStateError(`refused: ${path} goes through a symbolic link`);
  }
}

/** The path a file is restored to, relative to HOME; throws ThreadStateError when it is not a thread file. */
function restoredPath(harness: HarnessName, path: string, cwd: string): string {
  const segments = path.split('/');
  if (path.includes('\\') || path.includes('\0') || segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw new ThreadStateError(`refused thread file path ${JSON.stringify(path)}`);
  }
  const [top, folder] = segments;
  if (harness === 'codex') {
    if (`${top}/${folder}` !== CODEX_SESSIONS || segments.length < 3) throw new ThreadStateError(`refused: ${path} is not under ${CODEX_SESSIONS}/`);
    return path;
  }
  if (`${top}/${folder}` !== CLAUDE_PROJECTS || segments.length < 4) throw new ThreadStateError(`refused: ${path} is not under ${CLAUDE_PROJECTS}/<folder>/`);
  // Claude Code looks for the transcript in the folder named after the working directory.
  return [top, folder, claudeProjectDirName(cwd), ...segments.slice(3)].join('/');
}
