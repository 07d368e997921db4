// POST /runs/{runId}/cancel in the form DESIGN.md fixes: {run, status, alreadyTerminal}.
import { MongoClient } from 'mongodb';
import { waitFor, sharedSystem } from '@ars/testenv';
import { dataOf, errorOf } from '../support/accounts.js';
import { harnessPid, newRunsUser, processAlive } from '../support/runs.js';

const system = sharedSystem();

/** The runs service's own record of a cancel request (`cancelRequestedAt`) in the stack's MongoDB. */
async function storedCancelRequest(runId: string): Promise<Date | null | undefined> {
  const client = await MongoClient.connect(system().mongoUrl);
  try {
    const run = await client.db('ars_runs').collection<{ _id: string; cancelRequestedAt: Date | null }>('runs').findOne({ _id: runId });
    return run?.cancelRequestedAt;
  } finally {
    await client.close();
  }
}

describe.each(['codex', 'claude-code'] as const)(
  '%s: cancel during @sleep 30000 reaches cancelled within seconds and the harness process is gone',
  (harness) => {
    test('cancellation_requested, then cancelled; the harness pid no longer exists', async () => {
      const { runs, repoId } = await newRunsUser(system().baseUrl);
      const run = await runs.started({ repoId, harness, prompt: '@shell echo harness-pid=$PPID cwd=$PWD\n@sleep 30000\n@say too late' });
      const { events } = await runs.waitFor(run.runId, (_r, seen) => harnessPid(seen) !== undefined);
      const pid = harnessPid(events) ?? 0;
      expect(processAlive(pid)).toBe(true);

      const answer = await runs.cancel(run.runId);
      expect(answer.status).toBe(200);
      const body = dataOf(answer);
      expect(Object.keys(body).sort()).toEqual(['alreadyTerminal', 'run', 'status']);
      expect(body).toMatchObject({ status: 'cancellation_requested', alreadyTerminal: false });
      expect(['pending', 'streaming', 'cancelled']).toContain(body.run.status);

      const { run: done, events: all } = await runs.waitFor(run.runId, undefined, 10_000);
      expect(done.status).toBe('cancelled');
      expect(done.error).toBeNull();
      expect(all.map((e) => e.message)).not.toContain('too late');
      await waitFor(`harness process ${pid} to be gone`, () => !processAlive(pid), 5_000);
    });
  },
);

describe('cancel is idempotent', () => {
  test('cancelling twice while live: both requested, one cancelled run', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const run = await runs.started({ repoId, prompt: '@sleep 30000' });
    await runs.waitFor(run.runId, (r) => r.status === 'streaming');
    const [a, b] = await Promise.all([runs.cancel(run.runId), runs.cancel(run.runId)]);
    for (const answer of [a, b]) expect(dataOf(answer!).status).toMatch(/^(cancellation_requested|already_terminal)$/);
    expect((await runs.waitFor(run.runId, undefined, 10_000)).run.status).toBe('cancelled');
  });

  test('a cancel right after the start (still pending) ends the run cancelled', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const run = await runs.started({ repoId, prompt: '@say hello\n@sleep 30000' });
    expect(dataOf(await runs.cancel(run.runId)).status).toBe('cancellation_requested');
    expect((await runs.waitFor(run.runId, undefined, 15_000)).run.status).toBe('cancelled');
  });
});

describe('cancel of a terminal run changes nothing', () => {
  test.each([
    ['success', '@say done'],
    ['failed', '@fail broken'],
  ])('a %s run: already_terminal, alreadyTerminal true, the run and its events unchanged', async (status, prompt) => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const run = await runs.started({ repoId, prompt });
    const before = await runs.waitFor(run.runId);
    expect(before.run.status).toBe(status);
    const answer = dataOf(await runs.cancel(run.runId));
    expect(answer).toEqual({ run: before.run, status: 'already_terminal', alreadyTerminal: true });
    const again = dataOf(await runs.cancel(run.runId));
    expect(again).toEqual(answer);
    const after = dataOf(await runs.events(run.runId, 200));
    expect(after.run).toEqual(before.run);
    expect(after.events).toEqual(before.events);
    // Nothing was set going that could change the run later (no wait-and-see): a cancel that got past
    // the terminal check asks sandboxes and then records cancelRequestedAt, which is still unset.
    expect(await storedCancelRequest(run.runId)).toBeNull();
  });

  test('a cancelled run cancelled again: already_terminal', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const run = await runs.started({ repoId, prompt: '@sleep 30000' });
    await runs.waitFor(run.runId, (r) => r.status === 'streaming');
    await runs.cancel(run.runId);
    const { run: cancelled } = await runs.waitFor(run.runId, undefined, 10_000);
    expect(dataOf(await runs.cancel(run.runId))).toEqual({ run: cancelled, status: 'already_terminal', alreadyTerminal: true });
  });

  test('an unknown run is 404', async () => {
    const { runs } = await newRunsUser(system().baseUrl);
    const answer = await runs.cancel('no-such-run');
    expect(answer.status).toBe(404);
    expect(errorOf(answer).code).toBe('NOT_FOUND');
  });
});
