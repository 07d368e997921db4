import { startRunsHarness, type RunsHarness } from '../testing/runsHarness.js';
import type { Run } from '../domain/runView.js';

let h: RunsHarness;
beforeAll(async () => {
  h = await startRunsHarness();
});
afterAll(async () => {
  await h.stop();
});

interface CancelAnswer {
  run: Run;
  status: string;
  alreadyTerminal: boolean;
}

async function newRun(): Promise<{ userId: string; runId: string }> {
  const { userId, repoId } = await h.newTenant();
  const run = (await h.start(userId, { repoId, prompt: 'do it' })).data;
  return { userId, runId: run.runId };
}

const cancel = (userId: string, runId: string) => h.call<CancelAnswer>('POST', `/internal/users/${userId}/runs/${runId}/cancel`, {});

describe('cancel of a live run: sandboxes is asked; the answer reports cancellation as requested; cancelled once acknowledged', () => {
  test('{run, status: cancellation_requested, alreadyTerminal: false}; sandboxes got the run and its user; then cancelled', async () => {
    const { userId, runId } = await newRun();
    await h.event(runId, 0);
    await h.waitFor('streaming', async () => (await h.getRun(userId, runId)).status === 'streaming');
    const answer = await cancel(userId, runId);
    expect(answer.status).toBe(200);
    expect(answer.data).toEqual({ run: await h.getRun(userId, runId), status: 'cancellation_requested', alreadyTerminal: false });
    expect(answer.data.run.status).toBe('streaming');
    expect(h.sandboxes.cancels.filter((c) => c.runId === runId)).toEqual([{ runId, userId, caller: 'runs' }]);
    await h.finish(runId, { status: 'cancelled', error: null, failure: null, eventCount: 1 });
    const run = await h.waitFor('cancelled', async () => {
      const current = await h.getRun(userId, runId);
      return current.status === 'cancelled' ? current : undefined;
    });
    expect(run.error).toBeNull();
  });

  test.each(['not_started', 'finished'] as const)('sandboxes answering %s is a requested cancellation too (a pending run stays pending)', async (state) => {
    const { userId, runId } = await newRun();
    h.sandboxes.behave(userId, state);
    const answer = await cancel(userId, runId);
    expect(answer.data).toMatchObject({ status: 'cancellation_requested', alreadyTerminal: false, run: { runId, status: 'pending' } });
  });

  test('cancel is idempotent: asking twice asks sandboxes twice and answers the same form', async () => {
    const { userId, runId } = await newRun();
    const first = await cancel(userId, runId);
    const second = await cancel(userId, runId);
    expect(first.data.status).toBe('cancellation_requested');
    expect(second.data.status).toBe('cancellation_requested');
    expect(h.sandboxes.cancels.filter((c) => c.runId === runId)).toHaveLength(2);
  });
});

describe('cancel of a terminal run: unchanged, no side effects', () => {
  test.each([
    ['success', { status: 'success', error: null, failure: null, eventCount: 0 }],
    ['failed', { status: 'failed', error: 'agent gave up', failure: 'agent', eventCount: 0 }],
    ['cancelled', { status: 'cancelled', error: null, failure: null, eventCount: 0 }],
  ] as const)('%s: {run, status: already_terminal, alreadyTerminal: true}, sandboxes not called', async (status, finished) => {
    const { userId, runId } = await newRun();
    await h.finish(runId, finished);
    const before = await h.waitFor(status, async () => {
      const current = await h.getRun(userId, runId);
      return current.status === status ? current : undefined;
    });
    const answer = await cancel(userId, runId);
    expect(answer.status).toBe(200);
    expect(answer.data).toEqual({ run: before, status: 'already_terminal', alreadyTerminal: true });
    expect(await h.getRun(userId, runId)).toEqual(before);
    expect(h.sandboxes.cancels.filter((c) => c.runId === runId)).toHaveLength(0);
  });
});

describe('sandboxes unreachable: 409 CONFLICT, the run unchanged', () => {
  test.each(['unreachable', 'failing'] as const)('sandboxes %s', async (behaviour) => {
    const { userId, runId } = await newRun();
    h.sandboxes.behave(userId, behaviour);
    const before = await h.getRun(userId, runId);
    const answer = await cancel(userId, runId);
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({ ok: false, error: { code: 'CONFLICT', message: 'the sandbox could not be reached to cancel the run; try again' } });
    expect(await h.getRun(userId, runId)).toEqual(before);
  });
});

describe('cancel of a run that does not exist: 404', () => {
  test('unknown run id', async () => {
    const { userId } = await h.newTenant();
    const answer = await cancel(userId, 'no-such-run');
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'Run not found' } });
  });
});
