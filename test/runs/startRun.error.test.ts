// POST /runs: the body table, Idempotency-Key rules and replays, through the gateway on the whole stack.
import { dataOf, errorOf } from '../support/accounts.js';
import { newRunsUser } from '../support/runs.js';
import { letRunStartMinutePass } from '@ars/gateway/testing';
import { sharedSystem } from '@ars/testenv';

const system = sharedSystem();

describe('same key and same body replays the original run; 20 identical requests racing create one run', () => {
  test('20 racing starts: all 202, one runId, exactly one with replayed false', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const body = { repoId, prompt: '@say once' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => runs.start(body, 'race')));
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 20 }, () => 202));
    const runIds = new Set(answers.map((a) => dataOf(a).runId));
    expect(runIds.size).toBe(1);
    expect(answers.filter((a) => dataOf(a).replayed === false)).toHaveLength(1);
    const [runId = ''] = [...runIds];
    const { run, events } = await runs.waitFor(runId);
    expect(run).toMatchObject({ status: 'success' });
    expect(events.filter((e) => e.type === 'stream_started')).toHaveLength(1);
  });

  test('a replay after the run finished returns it as it is now, replayed true', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const body = { repoId, prompt: '@say hi', harness: 'claude-code' };
    const first = dataOf(await runs.start(body, 'again'));
    const done = await runs.waitFor(first.runId);
    const replay = dataOf(await runs.start({ harness: 'claude-code', prompt: '@say hi', repoId }, 'again'));
    expect(replay).toEqual({ ...done.run, replayed: true });
  });

  test('same key with a different body is 409 IDEMPOTENCY_CONFLICT and starts nothing', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const first = dataOf(await runs.start({ repoId, prompt: '@say a' }, 'conflict'));
    const answer = await runs.start({ repoId, prompt: '@say b' }, 'conflict');
    expect(answer.status).toBe(409);
    expect(errorOf(answer).code).toBe('IDEMPOTENCY_CONFLICT');
    expect(dataOf(await runs.start({ repoId, prompt: '@say a' }, 'conflict')).runId).toBe(first.runId);
  });

  test('a replay never gets 429: its key left the minute window, the minute is full of new starts, it still replays', async () => {
    const { runs, repoId, account } = await newRunsUser(system().baseUrl);
    const body = { repoId, prompt: '@say early' };
    const first = dataOf(await runs.start(body, 'early'));
    await letRunStartMinutePass(account.userId);
    for (let i = 1; i <= 10; i += 1) expect([i, (await runs.start({ repoId, prompt: `@say ${i}` }, `later-${i}`)).status]).toEqual([i, 202]);
    const refused = await runs.start({ repoId, prompt: '@say 11' }, 'later-11');
    expect(refused.status).toBe(429);
    const replay = await runs.start(body, 'early');
    expect(replay.status).toBe(202);
    expect(dataOf(replay)).toMatchObject({ runId: first.runId, replayed: true });
  });

  test('keys are case-sensitive: "Key" and "key" are two runs', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const upper = dataOf(await runs.start({ repoId, prompt: '@say x' }, 'Key'));
    const lower = dataOf(await runs.start({ repoId, prompt: '@say x' }, 'key'));
    expect(upper.runId).not.toBe(lower.runId);
    expect(lower.replayed).toBe(false);
  });
});

describe('Idempotency-Key is required, at most 200 characters', () => {
  test('missing is 400 saying it is required; 201 characters is 400; 200 is accepted', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const missing = await fetch(`${runs.api}/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${runs.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ repoId, prompt: 'x' }),
    });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toMatch(/Idempotency-Key.*required/i);
    const long = await runs.start({ repoId, prompt: 'x' }, 'k'.repeat(201));
    expect(long.status).toBe(400);
    expect(errorOf(long).message).toContain('Idempotency-Key');
    expect((await runs.start({ repoId, prompt: '@say ok' }, 'k'.repeat(200))).status).toBe(202);
  });
});

describe('the body table: 400 BAD_REQUEST naming the field', () => {
  test.each([
    ['repoId missing', { prompt: 'x' }, 'repoId'],
    ['prompt missing', {}, 'prompt'],
    ['prompt over 100,000 characters', { prompt: 'p'.repeat(100_001) }, 'prompt'],
    ['prompt of 100,001 emoji (characters are code points)', { prompt: '😀'.repeat(100_001) }, 'prompt'],
    ['an invalid harness', { prompt: 'x', harness: 'gpt' }, 'harness'],
    ['a baseBranch with ..', { prompt: 'x', baseBranch: 'a..b' }, 'baseBranch'],
    ['a workingBranch starting with -', { prompt: 'x', workingBranch: '-x' }, 'workingBranch'],
    ['a baseBranch HEAD', { prompt: 'x', baseBranch: 'HEAD' }, 'baseBranch'],
    ['a workingBranch HEAD', { prompt: 'x', workingBranch: 'HEAD' }, 'workingBranch'],
    ['a baseBranch @', { prompt: 'x', baseBranch: '@' }, 'baseBranch'],
    ['a workingBranch that is a full ref', { prompt: 'x', workingBranch: 'refs/heads/feature' }, 'workingBranch'],
    ['a baseBranch starting with --', { prompt: 'x', baseBranch: '--orphan' }, 'baseBranch'],
    ['a workingBranch equal to the base', { prompt: 'x', baseBranch: 'main', workingBranch: 'main' }, 'workingBranch'],
    ['a rootDirectory with ..', { prompt: 'x', rootDirectory: '../x' }, 'rootDirectory'],
    ['an absolute rootDirectory', { prompt: 'x', rootDirectory: '/abs' }, 'rootDirectory'],
    ['createBranch not a boolean', { prompt: 'x', createBranch: 'yes' }, 'createBranch'],
  ])('%s', async (_name, fields, field) => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const body: Record<string, unknown> = { repoId, ...fields };
    if (field === 'repoId') delete body.repoId;
    const answer = await runs.start(body, `bad-${field}`);
    expect(answer.status).toBe(400);
    expect(errorOf(answer)).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining(field) });
  });

  test('a prompt of exactly 100,000 characters is accepted', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const answer = await runs.start({ repoId, prompt: `@say long\n${'p'.repeat(100_000 - 10)}` }, 'long');
    expect(answer.status).toBe(202);
  });

  test('characters are code points, counted the same by gateway and runs: 100,000 with emoji (more UTF-16 units) are accepted, the run starts', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const prompt = `@say long\n${'😀'.repeat(100_000 - 10)}`;
    expect([...prompt]).toHaveLength(100_000);
    expect(prompt.length).toBeGreaterThan(100_000);
    const run = dataOf(await runs.start({ repoId, prompt }, 'emoji'));
    expect(run.replayed).toBe(false);
    expect((await runs.waitFor(run.runId)).run).toMatchObject({ status: 'success' });
  });

  test('a branch name the validation refuses starts nothing: the key is not used up', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    expect((await runs.start({ repoId, prompt: '@say x', baseBranch: 'HEAD' }, 'head')).status).toBe(400);
    const run = dataOf(await runs.start({ repoId, prompt: '@say x' }, 'head'));
    expect(run.replayed).toBe(false);
  });

  test("a repository that is not the caller's is 404 NOT_FOUND", async () => {
    const mine = await newRunsUser(system().baseUrl);
    const theirs = await newRunsUser(system().baseUrl);
    const answer = await mine.runs.start({ repoId: theirs.repoId, prompt: 'x' }, 'foreign');
    expect(answer.status).toBe(404);
    expect(errorOf(answer).code).toBe('NOT_FOUND');
  });
});

describe("defaults: harness codex, base the repository's default branch, working the base", () => {
  test('a minimal body', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const run = await runs.started({ repoId, prompt: '@say hi' });
    expect(run).toMatchObject({ harness: 'codex', branch: { base: 'main', working: 'main', createBranch: false }, rootDirectory: null });
  });
});

describe('createBranch without workingBranch generates a deterministic name from the key and the request', () => {
  test('the replay names the same branch; another key or another body another branch', async () => {
    const { runs, account, repoId } = await newRunsUser(system().baseUrl);
    const otherRepoId = account.repos[1]?.id ?? '';
    const body = { repoId, prompt: '@say branch', createBranch: true };
    const first = await runs.started(body, 'gen-1');
    expect(first.branch.working).toMatch(/^[A-Za-z0-9._/-]+$/);
    expect(first.branch.working).not.toBe('main');
    expect((await runs.started(body, 'gen-1')).branch.working).toBe(first.branch.working);
    const otherKey = await runs.started(body, 'gen-2');
    expect(otherKey.branch.working).not.toBe(first.branch.working);
    const otherBody = await runs.started({ ...body, repoId: otherRepoId }, 'gen-3');
    expect(otherBody.branch.working).not.toBe(first.branch.working);
  });
});
