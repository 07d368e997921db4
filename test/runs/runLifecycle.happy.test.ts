// A run end to end through the gateway, on the whole stack: runs, sandboxes (local provider, the
// harness adapters through their real SDKs, the stand-in harness CLIs), Kafka, MongoDB.
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor, sharedSystem } from '@ars/testenv';
import { dataOf, errorOf } from '../support/accounts.js';
import { git, newRunsUser, processAlive, reportedPid, type Run, RUN_FIELDS, type RunEvent, RunsClient, sourceRepositoryPath } from '../support/runs.js';

const system = sharedSystem();

const toolCalls = (events: RunEvent[]): (string | null)[] => events.filter((e) => e.type === 'tool_call').map((e) => e.toolName);

describe.each([
  ['codex', 'shell'],
  ['claude-code', 'Bash'],
] as const)('a %s run goes pending → streaming → success, stream_started first, tool calls in order', (harness, shellTool) => {
  test('202 with the Run (pending, no sandbox yet, replayed false), then streaming, then success', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const prompt = ['Fix it.', '@say starting', '@sleep 1500', '@shell echo one', '@tool search {"q":"docs"}', '@shell echo two', '@say done'].join('\n');
    const started = await runs.start({ repoId, prompt, harness }, 'first');
    expect(started.status).toBe(202);
    const run = dataOf(started);
    expect(Object.keys(run).sort()).toEqual([...RUN_FIELDS, 'replayed'].sort());
    expect(run).toMatchObject({
      status: 'pending',
      harness,
      repoId,
      replayed: false,
      sandboxId: null,
      sandboxRecordId: null,
      error: null,
      rootDirectory: null,
      branch: { base: 'main', working: 'main', createBranch: false },
      eventsUrl: `/api/v1/svc/runs/${run.runId}/events`,
      cancelUrl: `/api/v1/svc/runs/${run.runId}/cancel`,
    });

    const streaming = await runs.waitFor(run.runId, (r) => r.status !== 'pending');
    expect(streaming.run.status).toBe('streaming');
    const { run: done, events, statuses } = await runs.waitFor(run.runId);
    expect(statuses.at(-1)).toBe('success');
    expect(done.error).toBeNull();
    expect(done.sandboxRecordId).toEqual(expect.any(String));
    expect(done.runtime.provider).toBe('local/stand-in');
    expect(done.runtime.runId).toEqual(expect.any(String));

    expect(events[0]).toMatchObject({ type: 'stream_started', toolName: null, payload: {} });
    expect(events[0]?.message).toEqual(expect.any(String));
    expect(toolCalls(events)).toEqual([shellTool, 'search', shellTool]);
    const [first, search, second] = events.filter((e) => e.type === 'tool_call');
    expect(JSON.stringify(first?.payload)).toContain('one');
    expect(search?.payload).toMatchObject({ input: { q: 'docs' } });
    expect(JSON.stringify(second?.payload)).toContain('two');
    expect(events.filter((e) => e.type === 'assistant_message').map((e) => e.message)).toEqual(['starting', 'done']);
    for (const event of events) {
      expect(Object.keys(event).sort()).toEqual(['createdAt', 'id', 'message', 'payload', 'toolName', 'type']);
    }
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  test('with no directive at all: one message, one ls, success', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const run = await runs.started({ repoId, prompt: 'Look around.', harness });
    const { run: done, events } = await runs.waitFor(run.runId);
    expect(done).toMatchObject({ status: 'success' });
    expect(events.filter((e) => e.type === 'assistant_message')).toHaveLength(1);
    const calls = events.filter((e) => e.type === 'tool_call');
    expect(calls.map((e) => e.toolName)).toEqual([shellTool]);
    expect(JSON.stringify(calls[0]?.payload)).toContain('README.md');
  });

  test('@fail gives failed with the message in error', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const run = await runs.started({ repoId, prompt: '@say trying\n@fail the tests do not compile\n@say never said', harness });
    const { run: done, events } = await runs.waitFor(run.runId);
    expect(done.status).toBe('failed');
    expect(done.error).toContain('the tests do not compile');
    expect(events[0]?.type).toBe('stream_started');
    expect(events.map((e) => e.message)).not.toContain('never said');
  });
});

describe('a @write with createBranch leaves a commit on the working branch of the source repository', () => {
  test.each(['codex', 'claude-code'] as const)('%s: the generated branch holds the file, the base branch does not', async (harness) => {
    const { runs, account, repoId } = await newRunsUser(system().baseUrl);
    const run = await runs.started({ repoId, harness, createBranch: true, prompt: '@write notes/hello.txt Hello from the agent\\n' });
    expect(run.branch.createBranch).toBe(true);
    expect(run.branch.working).not.toBe('main');
    const { run: done } = await runs.waitFor(run.runId);
    expect(done).toMatchObject({ status: 'success' });
    const bare = await sourceRepositoryPath(system().stack.services.catalog.url, system().internalToken, account, repoId);
    expect(await git(['--git-dir', bare, 'show', `refs/heads/${run.branch.working}:notes/hello.txt`])).toBe('Hello from the agent\n');
    expect(await git(['--git-dir', bare, 'log', '-1', '--format=%s', `refs/heads/${run.branch.working}`])).toContain(run.runId);
    await expect(git(['--git-dir', bare, 'show', 'refs/heads/main:notes/hello.txt'])).rejects.toThrow();
  });

  test('a named working branch: the commit lands there', async () => {
    const { runs, account, repoId } = await newRunsUser(system().baseUrl);
    const run = await runs.started({ repoId, workingBranch: 'feature/notes', prompt: '@write a.txt A' });
    expect(run.branch).toEqual({ base: 'main', working: 'feature/notes', createBranch: false });
    expect((await runs.waitFor(run.runId)).run).toMatchObject({ status: 'success' });
    const bare = await sourceRepositoryPath(system().stack.services.catalog.url, system().internalToken, account, repoId);
    expect(await git(['--git-dir', bare, 'show', 'refs/heads/feature/notes:a.txt'])).toBe('A');
  });
});

describe('nothing the agent started outlives its run', () => {
  test("a process left running in the background is ended when the run's sandbox is released", async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const run = await runs.started({ repoId, prompt: '@shell sleep 120 >/dev/null 2>&1 & echo left-pid=$! cwd=$PWD\n@sleep 1500' });
    // Read while the run still lives (inside its sandbox the pid is the namespace's own).
    const { events: seen } = await runs.waitFor(run.runId, (_r, so) => reportedPid(so, 'left-pid') !== undefined);
    const leftPid = reportedPid(seen, 'left-pid') ?? 0;
    const { run: done } = await runs.waitFor(run.runId);
    expect(done).toMatchObject({ status: 'success' });
    expect(leftPid).toBeGreaterThan(0);
    await waitFor(`the background process ${leftPid} to be gone`, () => !processAlive(leftPid), 10_000);
  });
});

describe('rootDirectory: the agent works in that subfolder of the checkout', () => {
  test('a run with rootDirectory runs its shell there; a missing folder fails the run saying so', async () => {
    const { runs, account, repoId } = await newRunsUser(system().baseUrl);
    const bare = await sourceRepositoryPath(system().stack.services.catalog.url, system().internalToken, account, repoId);
    const work = mkdtempSync(join(tmpdir(), 'ars-root-dir-'));
    try {
      await git(['clone', '-q', bare, work]);
      mkdirSync(join(work, 'packages/app'), { recursive: true });
      writeFileSync(join(work, 'packages/app/marker.txt'), 'in app\n');
      await git(['-c', 'user.name=t', '-c', 'user.email=t@t', 'add', '.'], work);
      await git(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'app'], work);
      await git(['push', '-q', 'origin', 'HEAD:main'], work);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    const run = await runs.started({ repoId, rootDirectory: 'packages/app', prompt: '@shell cat marker.txt' });
    expect(run.rootDirectory).toBe('packages/app');
    const { run: done, events } = await runs.waitFor(run.runId);
    expect(done).toMatchObject({ status: 'success' });
    expect(JSON.stringify(events.find((e) => e.type === 'tool_call')?.payload)).toContain('in app');

    const missing = await runs.started({ repoId, rootDirectory: 'no/such/dir', prompt: '@say hi' });
    const { run: failed } = await runs.waitFor(missing.runId);
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('no/such/dir');
  });
});

describe('GET /runs/{runId} and /events: the current run with each answer, oldest first, limit 1–200 clamped', () => {
  let runs: RunsClient;
  let finished: Run;
  beforeAll(async () => {
    const c = await newRunsUser(system().baseUrl);
    runs = c.runs;
    const prompt = Array.from({ length: 6 }, (_, i) => `@say message ${i}`).join('\n');
    finished = (await runs.waitFor((await runs.started({ repoId: c.repoId, prompt })).runId)).run;
  });

  test('GET /runs/{runId} answers {run} with exactly the Run fields (no replayed)', async () => {
    const { run } = dataOf(await runs.get(finished.runId));
    expect(Object.keys(run).sort()).toEqual([...RUN_FIELDS].sort());
    expect(run).toMatchObject({ status: 'success' });
  });

  test('events are oldest first; limit=2 gives the first two; limit=0 is clamped to 1, 5000 to 200', async () => {
    const all = dataOf(await runs.events(finished.runId)).events;
    expect(all.map((e) => e.message).filter((m) => m?.startsWith('message '))).toEqual(Array.from({ length: 6 }, (_, i) => `message ${i}`));
    const times = all.map((e) => Date.parse(e.createdAt));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(dataOf(await runs.events(finished.runId, 2)).events).toEqual(all.slice(0, 2));
    expect(dataOf(await runs.events(finished.runId, 0)).events).toEqual(all.slice(0, 1));
    expect(dataOf(await runs.events(finished.runId, 5000)).events).toEqual(all);
    expect(dataOf(await runs.events(finished.runId)).run).toMatchObject({ status: 'success' });
  });

  test('limit that is not an integer is 400 naming limit', async () => {
    const answer = await runs.events(finished.runId, 'ten');
    expect(answer.status).toBe(400);
    expect(errorOf(answer)).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('limit') });
  });

  test("another user's run is 404 on every route, and stays untouched", async () => {
    const other = await newRunsUser(system().baseUrl);
    for (const answer of [await other.runs.get(finished.runId), await other.runs.events(finished.runId), await other.runs.cancel(finished.runId)]) {
      expect(answer.status).toBe(404);
      expect(errorOf(answer).code).toBe('NOT_FOUND');
    }
    expect(dataOf(await runs.get(finished.runId)).run).toEqual(finished);
  });

  test('an unknown run id is 404', async () => {
    const answer = await runs.get('no-such-run');
    expect(answer.status).toBe(404);
    expect(errorOf(answer).code).toBe('NOT_FOUND');
  });
});
