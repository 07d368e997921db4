import { existsSync, readFileSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { waitFor } from '@ars/testenv';
import type { HarnessEvent, HarnessName } from '@ars/harnesses';
import { runHarness } from './index.js';
import { standInExecutable } from './standInPaths.js';
import { assertStandInsBuilt, isAlive, makeWorkTree, record, scrubbedEnv, type WorkTree } from './testing.js';

const HARNESSES: HarnessName[] = ['codex', 'claude-code'];

beforeAll(() => assertStandInsBuilt());

describe.each(HARNESSES)('%s adapter: failures, cancellation, crashes', (harness) => {
  let tree: WorkTree;
  beforeEach(async () => {
    tree = await makeWorkTree();
  });
  afterEach(async () => {
    await tree.cleanup();
  });

  test('@fail ends the run failed with the message in its error, after the earlier steps', async () => {
    const { result, events } = await record(harness, '@say working\n@fail boom\n@say never', tree.dir);
    expect(result.status).toBe('failed');
    expect(result.error).toContain('boom');
    expect(events[0]?.type).toBe('stream_started');
    expect(events.filter((e) => e.type === 'assistant_message').map((e) => e.message)).toEqual(['working']);
    const errors = events.filter((e) => e.type === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toContain('boom');
    expect(events.some((e) => e.type === 'completed')).toBe(false);
  });

  test('abort during @sleep 30000 gives cancelled and leaves no harness process', async () => {
    const controller = new AbortController();
    let pid: number | null = null;
    const onEvent = (event: HarnessEvent): void => {
      // `$PPID` of the shell is the harness process itself.
      if (event.type === 'tool_call' && event.payload.kind === 'shell') {
        pid = Number(String(event.payload.output).trim());
        controller.abort();
      }
    };
    const started = Date.now();
    const { result } = await record(harness, '@shell echo $PPID\n@sleep 30000\n@say too late', tree.dir, {
      signal: controller.signal,
      onEvent,
    });
    expect(result.status).toBe('cancelled');
    // Not a speed check: it ended before the 30 s sleep could have run out.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(pid).not.toBeNull();
    expect(pid).toBeGreaterThan(1);
    expect(await waitFor(`the harness process ${pid} to be gone`, () => !isAlive(pid as number), 10_000)).toBe(true);
  });

  test('abort also ends a running @shell command (its process group)', async () => {
    const controller = new AbortController();
    const promise = record(harness, '@shell echo $$ > shell.pid; exec sleep 30', tree.dir, {
      signal: controller.signal,
    });
    const pidFile = join(tree.dir, 'shell.pid');
    let shellPid = 0;
    expect(
      await waitFor(
        'the shell to write its pid',
        () => {
          if (existsSync(pidFile)) shellPid = Number(readFileSync(pidFile, 'utf8').trim());
          return shellPid > 0;
        },
        10_000,
      ),
    ).toBe(true);
    controller.abort();
    const { result } = await promise;
    expect(result.status).toBe('cancelled');
    expect(await waitFor(`the shell ${shellPid} to be gone`, () => !isAlive(shellPid), 10_000)).toBe(true);
  });

  test('an already aborted signal gives cancelled without events', async () => {
    const controller = new AbortController();
    controller.abort();
    const { result, events } = await record(harness, '@say hi', tree.dir, { signal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(events).toEqual([]);
  });

  test('a harness that exits non-zero at once (/bin/false) gives failed naming the crash', async () => {
    const { result } = await record(harness, '@say hi', tree.dir, { executablePath: '/bin/false' });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(new RegExp(`^${harness} harness crashed`));
    expect(result.error).toMatch(/exit|code 1/i);
  });

  test('a harness printing garbage gives failed naming the crash', async () => {
    const script = join(tree.dir, 'garbage.sh');
    await writeFile(script, '#!/bin/sh\ncat > /dev/null &\necho "this is not json"\necho "{broken"\nexit 0\n');
    await chmod(script, 0o755);
    const { result } = await record(harness, '@say hi', tree.dir, { executablePath: script });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(new RegExp(`^${harness} harness crashed`));
  });

  test('a harness that dies mid-stream gives failed after stream_started', async () => {
    const { result, events } = await record(harness, '@say hi\n@shell kill -9 $PPID', tree.dir);
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(new RegExp(`^${harness} harness crashed`));
    expect(events[0]?.type).toBe('stream_started');
    expect(events.at(-1)?.type).toBe('error');
  });

  test('a rejecting onEvent stops the harness and runHarness rejects with it, once the harness process is gone', async () => {
    let pid: number | null = null;
    await expect(
      runHarness({
        harness,
        prompt: '@shell echo $PPID\n@sleep 30000',
        cwd: tree.dir,
        env: scrubbedEnv(tree.dir),
        signal: new AbortController().signal,
        executablePath: standInExecutable(harness),
        onEvent: async (event) => {
          // `$PPID` of the shell is the harness process itself.
          if (event.type === 'tool_call' && event.payload.kind === 'shell') {
            pid = Number(String(event.payload.output).trim());
            throw new Error('store down');
          }
        },
      }),
    ).rejects.toThrow('store down');
    expect(pid).toBeGreaterThan(1);
    // Gone already, not soon: the caller removes the tree the harness worked in as soon as it returns.
    expect(isAlive(pid as unknown as number)).toBe(false);
  });
});

describe('claude-code adapter: a CLI whose output stays open after its result', () => {
  let tree: WorkTree;
  beforeEach(async () => {
    tree = await makeWorkTree();
  });
  afterEach(async () => {
    await tree.cleanup();
  });

  test('a child of the CLI holds its output open: the turn still ends as its result says, once the CLI was stopped and its output given its grace', async () => {
    // The stand-in CLI, with a process of its own that keeps the CLI's stdout open for five minutes.
    const script = join(tree.dir, 'claude-with-a-lingering-child.sh');
    await writeFile(script, `#!/bin/sh\nsleep 300 &\necho $! > "${join(tree.dir, 'lingering.pid')}"\nexec "${standInExecutable('claude-code')}" "$@"\n`);
    await chmod(script, 0o755);
    const started = Date.now();
    try {
      const { result, events } = await record('claude-code', '@say done', tree.dir, { executablePath: script });
      expect(result.status).toBe('success');
      expect(events.map((e) => e.type)).toEqual(['stream_started', 'assistant_message', 'usage', 'completed']);
      // Not a speed check: it ended long before the lingering child let go of the output.
      expect(Date.now() - started).toBeLessThan(300_000);
    } finally {
      const pid = Number(readFileSync(join(tree.dir, 'lingering.pid'), 'utf8').trim());
      if (pid > 0 && isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 120_000);
});
