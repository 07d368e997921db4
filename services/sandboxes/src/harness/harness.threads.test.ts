import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HarnessName } from '@ars/harnesses';
import { claudeProjectDirName } from '@ars/harness-thread-files';
import { MAX_THREAD_STATE_BYTES, ThreadStateError, collectThreadState, restoreThreadState } from '@ars/harnesses';
import { assertStandInsBuilt, makeWorkTree, record, type Recorded, type WorkTree } from './testing.js';

const HARNESSES: HarnessName[] = ['codex', 'claude-code'];

beforeAll(() => assertStandInsBuilt());

function messages(run: Recorded): (string | null)[] {
  return run.events.filter((e) => e.type === 'assistant_message').map((e) => e.message);
}

async function tempDir(prefix: string): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), prefix)));
}

/** Every file under `dir`, relative, `/`-separated. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

describe.each(HARNESSES)('%s: a turn resuming a threadId continues that thread', (harness) => {
  let tree: WorkTree;
  let home: string;
  beforeEach(async () => {
    tree = await makeWorkTree();
    home = await tempDir('ars-home-a-');
  });
  afterEach(async () => {
    await tree.cleanup();
    await rm(home, { recursive: true, force: true });
  });

  test('every turn reports its threadId; resuming keeps it; @recall lists the earlier prompts, oldest first', async () => {
    const first = await record(harness, 'first', tree.dir, { home });
    expect(first.result).toMatchObject({ status: 'success' });
    const threadId = first.result.threadId as string;
    expect(threadId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.events[0]?.message).toContain(threadId);

    const second = await record(harness, 'second', tree.dir, { home, resumeThreadId: threadId });
    expect(second.result).toMatchObject({ status: 'success', threadId });

    const recall = await record(harness, '@recall', tree.dir, { home, resumeThreadId: threadId });
    expect(recall.result).toMatchObject({ status: 'success', threadId });
    expect(messages(recall)).toEqual(['first\nsecond']);
  });

  test('@recall on a new thread says there are no earlier prompts', async () => {
    const run = await record(harness, '@recall', tree.dir, { home });
    expect(run.result).toMatchObject({ status: 'success' });
    expect(messages(run)).toEqual(['no earlier prompts']);
  });

  test('a prompt of several lines is recalled on one line, newlines as \\n and backslashes doubled', async () => {
    const first = await record(harness, 'line one\nline \\two', tree.dir, { home });
    const recall = await record(harness, '@recall', tree.dir, { home, resumeThreadId: first.result.threadId as string });
    expect(messages(recall)).toEqual(['line one\\nline \\\\two']);
  });

  test('a failed turn and a cancelled turn report their threadId too, and stay in the thread', async () => {
    const failed = await record(harness, '@fail broken', tree.dir, { home });
    expect(failed.result).toMatchObject({ status: 'failed', threadId: expect.any(String) });
    const threadId = failed.result.threadId as string;
    const controller = new AbortController();
    const cancelled = await record(harness, '@say waiting\n@sleep 30000', tree.dir, {
      home,
      resumeThreadId: threadId,
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'assistant_message') controller.abort();
      },
    });
    expect(cancelled.result).toMatchObject({ status: 'cancelled', threadId });
    const recall = await record(harness, '@recall', tree.dir, { home, resumeThreadId: threadId });
    expect(messages(recall)).toEqual(['@fail broken\n@say waiting\\n@sleep 30000']);
  });
});

describe('the stand-ins keep threads where the real CLIs do', () => {
  let tree: WorkTree;
  let home: string;
  beforeEach(async () => {
    tree = await makeWorkTree();
    home = await tempDir('ars-home-');
  });
  afterEach(async () => {
    await tree.cleanup();
    await rm(home, { recursive: true, force: true });
  });

  test('codex: $HOME/.codex/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<threadId>.jsonl', async () => {
    const run = await record('codex', 'first', tree.dir, { home });
    const threadId = run.result.threadId as string;
    const files = await filesUnder(home);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(new RegExp(`^\\.codex/sessions/\\d{4}/\\d{2}/\\d{2}/rollout-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-${threadId}\\.jsonl$`));
  });

  test('claude-code: $HOME/.claude/projects/<cwd, every non-alphanumeric character as ->/<sessionId>.jsonl', async () => {
    const run = await record('claude-code', 'first', tree.dir, { home });
    const sessionId = run.result.threadId as string;
    expect(await filesUnder(home)).toEqual([`.claude/projects/${tree.dir.replace(/[^a-zA-Z0-9]/g, '-')}/${sessionId}.jsonl`]);
  });

  test('codex resuming a thread it has no rollout of starts a new thread, as the real CLI does', async () => {
    const unknown = '0199a213-81c0-7800-8aa1-bbab2a035a53';
    const run = await record('codex', '@recall', tree.dir, { home, resumeThreadId: unknown });
    expect(run.result).toMatchObject({ status: 'success' });
    expect(run.result.threadId).toMatch(/^[0-9a-f-]{36}$/);
    expect(run.result.threadId).not.toBe(unknown);
    expect(messages(run)).toEqual(['no earlier prompts']);
  });

  test('claude-code resuming a session it has no transcript of fails, as the real CLI does', async () => {
    const run = await record('claude-code', '@recall', tree.dir, { home, resumeThreadId: '0199a213-81c0-7800-8aa1-bbab2a035a53' });
    expect(run.result.status).toBe('failed');
    expect(run.result.error).toContain('No conversation found with session ID: 0199a213-81c0-7800-8aa1-bbab2a035a53');
    expect(run.result.threadId).toBeUndefined();
    expect(run.events).toEqual([]);
  });
});

describe.each(HARNESSES)('%s: collectThreadState then restoreThreadState carries a thread to another HOME and cwd', (harness) => {
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  test('turns 1 and 2 in HOME A; restored into a fresh HOME B with another cwd path, @recall answers first and second', async () => {
    const [treeA, treeB] = [await makeWorkTree(), await makeWorkTree()];
    const [homeA, homeB] = [await tempDir('ars-home-a-'), await tempDir('ars-home-b-')];
    dirs.push(treeA.dir, treeB.dir, homeA, homeB);

    const first = await record(harness, 'first', treeA.dir, { home: homeA });
    const threadId = first.result.threadId as string;
    await record(harness, 'second', treeA.dir, { home: homeA, resumeThreadId: threadId });

    const files = await collectThreadState(harness, { home: homeA, cwd: treeA.dir, threadId });
    expect(files).toHaveLength(1);
    expect(JSON.parse(JSON.stringify(files))).toEqual(files); // plain data
    await restoreThreadState(harness, files, { home: homeB, cwd: treeB.dir });

    const recall = await record(harness, '@recall', treeB.dir, { home: homeB, resumeThreadId: threadId });
    expect(recall.result).toMatchObject({ status: 'success', threadId });
    expect(messages(recall)).toEqual(['first\nsecond']);
  });
});

describe('threadState: only the thread files, bounded, never outside the harness thread folder', () => {
  let home: string;
  beforeEach(async () => {
    home = await tempDir('ars-home-');
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  test('a thread the harness kept nothing of gives no files', async () => {
    for (const harness of HARNESSES) {
      expect(await collectThreadState(harness, { home, cwd: '/work/tree', threadId: '0199a213-81c0-7800-8aa1-bbab2a035a53' })).toEqual([]);
    }
  });

  test('claude-code: the session folder beside the transcript is taken; credentials and other sessions are not', async () => {
    const project = join(home, '.claude/projects', claudeProjectDirName('/work/tree'));
    await mkdir(join(project, 's1/subagents'), { recursive: true });
    await writeFile(join(project, 's1.jsonl'), '{"type":"user"}\n');
    await writeFile(join(project, 's1/subagents/agent-1.jsonl'), '{}\n');
    await writeFile(join(project, 's2.jsonl'), '{}\n');
    await writeFile(join(home, '.claude/.credentials.json'), '{"secret":true}');
    const files = await collectThreadState('claude-code', { home, cwd: '/work/tree', threadId: 's1' });
    expect(files.map((f) => f.path)).toEqual(['.claude/projects/-work-tree/s1.jsonl', '.claude/projects/-work-tree/s1/subagents/agent-1.jsonl']);
    await restoreThreadState('claude-code', files, { home, cwd: '/other/place' });
    expect(existsSync(join(home, '.claude/projects/-other-place/s1/subagents/agent-1.jsonl'))).toBe(true);
  });

  test('a thread id that is not a plain name is refused', async () => {
    await expect(collectThreadState('codex', { home, cwd: '/w', threadId: '../x' })).rejects.toThrow(ThreadStateError);
  });

  test('restore refuses, writing nothing, paths escaping HOME or outside the thread folder', async () => {
    const good = { path: '.codex/sessions/2025/01/01/rollout-2025-01-01T00-00-00-t.jsonl', content: '{}\n' };
    for (const path of [
      '../escape.jsonl',
      '/etc/passwd',
      '.codex/sessions/../../.bashrc',
      '.bashrc',
      '.codex/auth.json',
      '.codex/sessions//x',
      '.codex\\sessions\\x',
    ]) {
      await expect(restoreThreadState('codex', [good, { path, content: 'x' }], { home, cwd: '/w' })).rejects.toThrow(ThreadStateError);
    }
    await expect(restoreThreadState('claude-code', [{ path: '.claude/projects/s.jsonl', content: 'x' }], { home, cwd: '/w' })).rejects.toThrow(
      ThreadStateError,
    );
    expect(await readdir(home)).toEqual([]);
  });

  test('restore refuses to write through a symbolic link already in HOME', async () => {
    const outside = await tempDir('ars-outside-');
    try {
      await mkdir(join(home, '.codex'));
      await symlink(outside, join(home, '.codex/sessions'));
      const file = { path: '.codex/sessions/2025/01/01/rollout-2025-01-01T00-00-00-t.jsonl', content: '{}\n' };
      await expect(restoreThreadState('codex', [file], { home, cwd: '/w' })).rejects.toThrow(ThreadStateError);
      expect(await readdir(outside)).toEqual([]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  test(`state over MAX_THREAD_STATE_BYTES (${MAX_THREAD_STATE_BYTES}) is refused by collect and by restore`, async () => {
    const big = 'x'.repeat(MAX_THREAD_STATE_BYTES + 1);
    const path = '.codex/sessions/2025/01/01/rollout-2025-01-01T00-00-00-big.jsonl';
    await expect(restoreThreadState('codex', [{ path, content: big }], { home, cwd: '/w' })).rejects.toThrow(ThreadStateError);
    await mkdir(join(home, '.codex/sessions/2025/01/01'), { recursive: true });
    await writeFile(join(home, path), big);
    await expect(collectThreadState('codex', { home, cwd: '/w', threadId: 'big' })).rejects.toThrow(ThreadStateError);
  });

  test("claude-code's project folder name: non-alphanumerics as -, cut at 200 with a hash suffix beyond", () => {
    expect(claudeProjectDirName('/tmp/ars-harness-Ab1.x_y')).toBe('-tmp-ars-harness-Ab1-x-y');
    const long = `/${'a'.repeat(250)}`;
    expect(claudeProjectDirName(long)).toMatch(new RegExp(`^-${'a'.repeat(199)}-[0-9a-z]+$`));
  });
});
