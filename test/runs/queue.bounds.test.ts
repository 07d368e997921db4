// A sandboxes instance runs at most SANDBOX_MAX_SESSIONS sessions: runs over it wait, on the whole
// stack, and a run that waited longer than its allocation deadline is not failed for it.
import { jest } from '@jest/globals';
import { dataOf } from '../support/accounts.js';
import { newRunsUser } from '../support/runs.js';
import { ownSystem } from '@ars/testenv';

jest.setTimeout(240_000);

// Long enough for a first clone and harness start on a busy machine, shorter than the run ahead.
const START_TIMEOUT_MS = 12_000;

const system = ownSystem('it asserts queueing, under session and queue limits of its own', {
  SANDBOX_MAX_SESSIONS: '1',
  RUN_START_TIMEOUT_MS: String(START_TIMEOUT_MS),
  WATCHDOG_INTERVAL_MS: '200',
  SESSION_HEARTBEAT_MS: '300',
});

describe('runs over SANDBOX_MAX_SESSIONS wait in a queue; their start deadline counts from leaving it', () => {
  test('with one session slot, a run queued behind an 18 s run ends success although it waited longer than the allocation deadline', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const first = await runs.started({ repoId, prompt: '@say first\n@sleep 18000\n@say first done' });
    await runs.waitFor(first.runId, (run) => run.status === 'streaming');
    const second = await runs.started({ repoId, prompt: '@say second' });

    const done = await runs.waitFor(second.runId, undefined, 120_000);
    expect(done.run).toMatchObject({ status: 'success', error: null });
    expect(done.events.map((e) => e.message)).toContain('second');
    const firstDone = await runs.waitFor(first.runId, undefined, 30_000);
    expect(firstDone.run).toMatchObject({ status: 'success' });
    // The second could only get a session once the first had ended: it waited past its start deadline.
    expect(Date.parse(firstDone.run.updatedAt) - Date.parse(second.createdAt)).toBeGreaterThan(START_TIMEOUT_MS);
  });

  test('a queued run is cancelled: it ends cancelled without events, and the run ahead of it is unaffected', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const first = await runs.started({ repoId, prompt: '@say holding\n@sleep 30000' });
    await runs.waitFor(first.runId, (run) => run.status === 'streaming');
    const queued = await runs.started({ repoId, prompt: '@say never' });

    expect(dataOf(await runs.cancel(queued.runId))).toMatchObject({ status: 'cancellation_requested', alreadyTerminal: false });
    const cancelled = await runs.waitFor(queued.runId, undefined, 30_000);
    expect(cancelled.run).toMatchObject({ status: 'cancelled', error: null, sandboxRecordId: null });
    expect(cancelled.events).toEqual([]);
    expect(dataOf(await runs.get(first.runId)).run.status).toBe('streaming');

    await runs.cancel(first.runId);
    expect((await runs.waitFor(first.runId, undefined, 30_000)).run.status).toBe('cancelled');
  });
});
