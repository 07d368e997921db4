// Where the harnesses keep their threads on disk, in the real CLIs' layout, and the prompt records
// in them. One description for two users that must agree: the sandboxes service's thread state
// (which carries these files between sandboxes) and the stand-in CLIs (which write and read them).
// Node builtins only, no other import: a stand-in in an isolated sandbox has this package bound in
// and nothing else of the project, so it must load alone.
import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** A thread id both CLIs could have made (they use UUIDs): safe as a file name part. */
export function isThreadId(id: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(id);
}

/** `$CODEX_HOME`, default `$HOME/.codex`, as codex resolves it. */
export function codexHomeOf(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME || join(env.HOME ?? '', '.codex');
}

/** `$CLAUDE_CONFIG_DIR`, default `$HOME/.claude`, as Claude Code resolves it. */
export function claudeConfigDirOf(env: NodeJS.ProcessEnv): string {
  return env.CLAUDE_CONFIG_DIR || join(env.HOME ?? '', '.claude');
}

// Claude Code's rule (its sanitizePath): every character that is not an ASCII letter or digit
// becomes `-`; a name longer than 200 is cut there and suffixed with a hash of the whole path.
const CLAUDE_MAX_DIR_NAME = 200;

function claudePathHash(path: string): string {
  let hash = 0;
  for (let i = 0; i < path.length; i += 1) hash = ((hash << 5) - hash + path.charCodeAt(i)) | 0;
  return Math.abs(hash).toString(36);
}

/** The folder name of a working directory under `~/.claude/projects/`. */
export function claudeProjectDirName(cwd: string): string {
  const name = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  return name.length <= CLAUDE_MAX_DIR_NAME ? name : `${name.slice(0, CLAUDE_MAX_DIR_NAME)}-${claudePathHash(cwd)}`;
}

/** `~/.claude/projects/<cwd encoded>/<sessionId>.jsonl`. */
export function claudeTranscriptPath(configDir: string, cwd: string, sessionId: string): string {
  return join(configDir, 'projects', claudeProjectDirName(cwd), `${sessionId}.jsonl`);
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

/** `sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<threadId>.jsonl` under CODEX_HOME. */
export function codexRolloutPath(codexHome: string, threadId: string, at: Date): string {
  const [y, mo, d] = [String(at.getUTCFullYear()), pad(at.getUTCMonth() + 1), pad(at.getUTCDate())];
  const stamp = `${y}-${mo}-${d}T${pad(at.getUTCHours())}-${pad(at.getUTCMinutes())}-${pad(at.getUTCSeconds())}`;
  return join(codexHome, 'sessions', y, mo, d, `rollout-${stamp}-${threadId}.jsonl`);
}

async function entriesOf(dir: string): Promise<{ name: string; isDirectory: boolean; isFile: boolean }[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.map((e) => ({ name: e.name, isDirectory: e.isDirectory(), isFile: e.isFile() }));
  } catch {
    return [];
  }
}

/** The rollout of a thread, found by its file name as codex does (`rollout-*-<threadId>.jsonl`); null when none. */
export async function findCodexRollout(codexHome: string, threadId: string): Promise<string | null> {
  if (!isThreadId(threadId)) return null;
  const suffix = `-${threadId}.jsonl`;
  // sessions/YYYY/MM/DD: three levels of folders, the rollouts in the last.
  let dirs = [join(codexHome, 'sessions')];
  for (let depth = 0; depth < 3; depth += 1) {
    const next: string[] = [];
    for (const dir of dirs) for (const e of await entriesOf(dir)) if (e.isDirectory) next.push(join(dir, e.name));
    dirs = next;
  }
  for (const dir of dirs.sort()) {
    const match = (await entriesOf(dir)).find((e) => e.isFile && e.name.startsWith('rollout-') && e.name.endsWith(suffix));
    if (match) return join(dir, match.name);
  }
  return null;
}

async function jsonLines(path: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(path, 'utf8');
  const records: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) records.push(value as Record<string, unknown>);
    } catch {
      // A torn last line (a CLI killed mid-write): the earlier records still count.
    }
  }
  return records;
}

function recordOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The user prompts of a codex rollout, oldest first: its `event_msg` `user_message` records (as the real CLI writes them). */
export async function codexRolloutPrompts(path: string): Promise<string[]> {
  return (await jsonLines(path))
    .filter((r) => r.type === 'event_msg' && recordOf(r.payload).type === 'user_message')
    .map((r) => recordOf(r.payload).message)
    .filter((m): m is string => typeof m === 'string');
}

/** The user prompts of a Claude Code transcript, oldest first: `user` records with text (not tool results, not meta). */
export async function claudeTranscriptPrompts(path: string): Promise<string[]> {
  const prompts: string[] = [];
  for (const r of await jsonLines(path)) {
    if (r.type !== 'user' || r.isMeta === true) continue;
    const content = recordOf(r.message).content;
    if (typeof content === 'string') prompts.push(content);
    else if (Array.isArray(content) && content.every((b) => recordOf(b).type === 'text')) {
      prompts.push(content.map((b) => String(recordOf(b).text ?? '')).join('\n'));
    }
  }
  return prompts;
}

async function appendRecord(path: string, record: Record<string, unknown>): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await appendFile(path, `${JSON.stringify(record)}\n`, 'utf8');
}

/** Starts a codex rollout as the real CLI does: a `session_meta` record first. */
export function startCodexRollout(path: string, threadId: string, cwd: string, at: Date): Promise<void> {
  const timestamp = at.toISOString();
  return appendRecord(path, {
    timestamp,
    type: 'session_meta',
    payload: { id: threadId, timestamp, cwd, originator: 'codex_standin', cli_version: '0.0.0-standin', source: 'exec' },
  });
}

export function appendCodexPrompt(path: string, prompt: string): Promise<void> {
  return appendRecord(path, { timestamp: new Date().toISOString(), type: 'event_msg', payload: { type: 'user_message', message: prompt, images: [] } });
}

export function appendClaudePrompt(path: string, sessionId: string, cwd: string, prompt: string): Promise<void> {
  return appendRecord(path, {
    parentUuid: null,
    isSidechain: false,
    type: 'user',
    message: { role: 'user', content: prompt },
    uuid: randomUUID(),
    timestamp: new Date().toISOString(),
    sessionId,
    cwd,
    userType: 'external',
    version: 'standin',
  });
}
