// The bounds of run sessions: SANDBOX_MAX_SESSIONS per instance and SANDBOX_MAX_LIVE_PER_USER per
// user. Runs over them wait in a queue (runs is told through `runs.sandbox-queued`), in arrival
// order, cancellable, and handed back at a graceful shutdown.
import { jest } from '@jest/globals';
import { createLogger } from '@ars/logger';
import { connectMongo } from '@ars/mongo';
import { assertStandInsBuilt } from '../harness/testing.js';
import { startSandboxesKit, type SandboxesKit, type TestRepo } from '../testing/sandboxesKit.js';

jest.setTimeout(300_000);

/** Generous: the suite shares a busy machine (a clone and a harness start per run). */
const WAIT_MS = 90_000;

let kit: SandboxesKit;
beforeAll(async () => {
  assertStandInsBuilt();
  kit = await startSandboxesKit();
});
afterAll(async () => {
  await kit?.stop();
});

async function restartWith(env: Record<string, string>): Promise<void> {
  await kit.stopService();
  await kit.startService(env);
}

/** Waits for the run's first `queued` notice. */
function waitQueued(runId: string): Promise<unknown> {
  return kit.waitFor(`the queued notice of ${runId}`, () => kit.messages(runId).queued.find((n) => n.state === 'queued'), WAIT_MS);
}

function waitAllocated(runId: string): Promise<unknown> {
  return kit.waitFor(`the allocation of ${runId}`, () => kit.messages(runId).allocated[0], WAIT_MS);
}

/** A run holding its session until cancelled. */
async function holdingRun(repo: TestRepo): Promise<string> {
  const { runId } = await kit.requestRun(repo, '@say holding\n@sleep 30000');
  await waitAllocated(runId);
  return runId;
}

async function runSandboxes(userId: string): Promise<{ id: string; created_at: string }[]> {
  const answer = await kit.internal<{ data: { sandboxes: { id: string; created_at: string }[] } }>('GET', `/internal/users/${userId}/sandboxes?limit=200`);
  return answer.body.data.sandboxes;
}

describe('SANDBOX_MAX_SESSIONS: runs over it wait in arrival order and start when a session ends', () => {
  beforeAll(() => restartWith({ SANDBOX_MAX_SESSIONS: '1' }));

  test('two runs behind a running one: queued notices (instance_full), then each starts in arrival order and ends success', async () => {
    const repo = await kit.newRepo();
    const holder = await holdingRun(repo);
    const second = await kit.requestRun(repo, '@say second');
    await waitQueued(second.runId);
    const third = await kit.requestRun(repo, '@say third');
    await waitQueued(third.runId);
    expect(kit.messages(second.runId).queued[0]).toEqual({ runId: second.runId, state: 'queued', reason: 'instance_full', queuedAt: expect.any(String) });
    expect(kit.messages(second.runId).allocated).toEqual([]);

    expect((await kit.cancel(holder, repo.userId)).body).toMatchObject({ data: { state: 'signalled' } });
    expect(await kit.waitFinished(holder, WAIT_MS)).toMatchObject({ status: 'cancelled' });
    expect(await kit.waitFinished(second.runId, WAIT_MS)).toMatchObject({ status: 'success', eventCount: expect.any(Number) });
    expect(await kit.waitFinished(third.runId, WAIT_MS)).toMatchObject({ status: 'success' });
    // Runs learns each left the queue (its start deadline counts from there).
    for (const runId of [second.runId, third.runId]) expect(kit.messages(runId).queued.at(-1)).toMatchObject({ state: 'dequeued', reason: 'instance_full' });

    // One session at a time, in arrival order: the sandbox records were made holder, second, third.
    const records = (await runSandboxes(repo.userId)).reverse();
    const recordOf = (runId: string): string | undefined => kit.messages(runId).allocated[0]?.sandboxRecordId;
    expect(records.map((r) => r.id)).toEqual([recordOf(holder), recordOf(second.runId), recordOf(third.runId)]);
  });

  test('a queued run is cancelled: not_started, run.finished cancelled with no sandbox, and the next one still starts', async () => {
    const repo = await kit.newRepo();
    const holder = await holdingRun(repo);
    const queued = await kit.requestRun(repo, '@say never');
    await waitQueued(queued.runId);
    const after = await kit.requestRun(repo, '@say after');
    await waitQueued(after.runId);

    expect(await kit.cancel(queued.runId, repo.userId)).toEqual({ status: 202, body: { ok: true, data: { runId: queued.runId, state: 'not_started' } } });
    expect(await kit.waitFinished(queued.runId, WAIT_MS)).toMatchObject({ status: 'cancelled', error: null, eventCount: 0 });
    expect((await kit.cancel(queued.runId, repo.userId)).body).toMatchObject({ data: { state: 'finished' } });

    await kit.cancel(holder, repo.userId);
    expect(await kit.waitFinished(after.runId, WAIT_MS)).toMatchObject({ status: 'success' });
    expect(kit.messages(queued.runId).allocated).toEqual([]);
    expect(kit.messages(queued.runId).events).toEqual([]);
    expect((await runSandboxes(repo.userId)).length).toBe(2);
  });

  test('a queued run asks the catalog for its repository when it leaves the queue: access withdrawn while it waited fails it, naming the repository', async () => {
    const repo = await kit.newRepo();
    const holder = await holdingRun(repo);
    const queued = await kit.requestRun(repo, '@say never cloned');
    await waitQueued(queued.runId);

    const catalogDb = await connectMongo({
      url: kit.mongoUrl,
      dbName: kit.catalog.dbName,
      logger: createLogger({ service: 'test', level: 'silent' }),
      appName: 'test',
    });
    try {
      expect((await catalogDb.db.collection('repo_access').deleteMany({ userId: repo.userId, repoId: repo.repoId })).deletedCount).toBe(1);
    } finally {
      await catalogDb.close();
    }
    await kit.cancel(holder, repo.userId);
    expect(await kit.waitFinished(queued.runId, WAIT_MS)).toMatchObject({
      status: 'failed',
      failure: 'sandbox_allocation',
      error: 'the repository was not found for this user',
      eventCount: 0,
    });
    expect(kit.messages(queued.runId).allocated).toEqual([]);
  });

  test('a redelivered request of a queued run queues nothing twice', async () => {
    const repo = await kit.newRepo();
    const holder = await holdingRun(repo);
    const queued = await kit.requestRun(repo, '@say once');
    await waitQueued(queued.runId);
    await kit.requestRun(repo, '@say once', { runId: queued.runId }, `${queued.runId}:requested-again`);
    await kit.waitFor('the redelivery read', () => kit.logLines.some((line) => line.includes(queued.runId) && line.includes('run request already handled')));
    await kit.cancel(holder, repo.userId);
    expect(await kit.waitFinished(queued.runId, WAIT_MS)).toMatchObject({ status: 'success' });
    expect(kit.messages(queued.runId).allocated).toHaveLength(1);
  });
});

describe('a graceful shutdown hands queued runs back: the next instance takes them over and runs them', () => {
  test('queued behind a running run, the service stops, a new instance starts: the queued run ends success', async () => {
    await restartWith({ SANDBOX_MAX_SESSIONS: '1' });
    const repo = await kit.newRepo();
    const holder = await holdingRun(repo);
    const queued = await kit.requestRun(repo, '@say survived the restart');
    await waitQueued(queued.runId);

    await kit.stopService();
    expect(await kit.waitFinished(holder, WAIT_MS)).toMatchObject({ status: 'failed', failure: 'sandbox_lost' });
    expect(kit.logLines.some((line) => line.includes('queued runs handed back'))).toBe(true);
    expect(kit.messages(queued.runId).finished).toEqual([]);

    await kit.startService({ SANDBOX_MAX_SESSIONS: '1' });
    expect(await kit.waitFinished(queued.runId, WAIT_MS)).toMatchObject({ status: 'success' });
    expect(kit.logLines.some((line) => line.includes(queued.runId) && line.includes('queued run taken over'))).toBe(true);
  });
});

describe('SANDBOX_MAX_LIVE_PER_USER: a user holds at most that many live sandboxes, public and runs’ alike', () => {
  beforeAll(() => restartWith({ SANDBOX_MAX_SESSIONS: '4', SANDBOX_MAX_LIVE_PER_USER: '1' }));

  test('a run of a user at the cap waits (user_full) without holding up another user’s run; it starts when the first ends', async () => {
    const repo = await kit.newRepo();
    const holder = await holdingRun(repo);
    const waiting = await kit.requestRun(repo, '@say my turn');
    await waitQueued(waiting.runId);
    expect(kit.messages(waiting.runId).queued[0]).toMatchObject({ reason: 'user_full' });

    const other = await kit.newRepo();
    const free = await kit.requestRun(other, '@say not held up');
    expect(await kit.waitFinished(free.runId, WAIT_MS)).toMatchObject({ status: 'success' });
    expect(kit.messages(free.runId).queued).toEqual([]);

    // The public create is refused while the run holds the user's one live sandbox.
    const refused = await kit.internal<{ ok: boolean; error: { code: string; message: string } }>('POST', `/internal/users/${repo.userId}/sandboxes`, {
      repoId: repo.repoId,
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ ok: false, error: { code: 'CONFLICT', message: expect.stringMatching(/1 live sandboxes.*the most one user may have/) } });

    await kit.cancel(holder, repo.userId);
    expect(await kit.waitFinished(waiting.runId, WAIT_MS)).toMatchObject({ status: 'success' });
  });
});

describe('the per-user cap holds under racing creates: exactly the cap, never more', () => {
  test('30 concurrent creates of distinct sandboxes by one user with a cap of 5: five 202, twenty-five 409, five live', async () => {
    await restartWith({ SANDBOX_MAX_LIVE_PER_USER: '5' });
    const repo = await kit.newRepo();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        kit.internal<{ ok: boolean; error?: { code: string } }>('POST', `/internal/users/${repo.userId}/sandboxes`, {
          repoId: repo.repoId,
          workingBranch: `race/${i}`,
        }),
      ),
    );
    expect(answers.filter((a) => a.status === 202)).toHaveLength(5);
    const refused = answers.filter((a) => a.status !== 202);
    expect(refused).toHaveLength(25);
    for (const answer of refused) expect(answer).toMatchObject({ status: 409, body: { ok: false, error: { code: 'CONFLICT' } } });
    const live = (await runSandboxes(repo.userId)) as { status?: string }[];
    expect(live.filter((s) => s.status === 'provisioning' || s.status === 'ready')).toHaveLength(5);
  });
});
