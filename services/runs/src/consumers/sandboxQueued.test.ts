// `runs.sandbox-queued`: a run sandboxes holds in its queue is not failed for waiting; its start
// deadline counts again from each notice (and from leaving the queue). Tests play sandboxes.
import { jest } from '@jest/globals';
import type { Run } from '../domain/runView.js';
import { SideBySide } from '@ars/testenv';
import { startRunsHarness, type RunsHarness } from '../testing/runsHarness.js';

// Each test has a run of its own and waits on the watchdog's real deadlines: every test of the file
// waits side by side (SideBySide: each body starts when the harness is up), not one rule after another.
// Long enough for the consumer's lag on a busy machine; the renewals below come every 2 s.
const START_TIMEOUT_MS = 15_000;

jest.setTimeout(240_000);

let h: RunsHarness;
const sideBySide = new SideBySide();
beforeAll(async () => {
  h = await startRunsHarness({
    RUN_START_TIMEOUT_MS: String(START_TIMEOUT_MS),
    RUN_TIMEOUT_MS: '30000',
    RUN_LOST_GRACE_MS: '1000',
    WATCHDOG_INTERVAL_MS: '200',
  });
  // The consumer reads the topic: a notice of an unknown run comes back as its log line.
  await notice('run-unknown-warm-up', 'queued');
  await h.waitFor(
    'the warm-up notice read',
    async () => h.logLines.some((line) => line.includes('run-unknown-warm-up') && line.includes('queue notice of an unknown run')),
    120_000,
  );
  sideBySide.start();
}, 180_000);
afterAll(async () => {
  await h.stop();
});

async function newRun(): Promise<{ userId: string; runId: string; createdAt: string }> {
  const { userId, repoId } = await h.newTenant();
  const run = (await h.start(userId, { repoId, prompt: 'wait your turn' })).data;
  return { userId, runId: run.runId, createdAt: run.createdAt };
}

let noticeSeq = 0;
async function notice(runId: string, state: 'queued' | 'dequeued', reason: 'instance_full' | 'user_full' = 'instance_full'): Promise<void> {
  noticeSeq += 1;
  await h.bus.publish('runs.sandbox-queued', {
    key: runId,
    type: 'run.sandbox-queued',
    id: `${runId}:${state}:${noticeSeq}`,
    data: { runId, state, reason, queuedAt: new Date().toISOString() },
  });
}

/** Waits until runs has read the run's latest notice (its log line). */
async function noticeRead(runId: string, count: number): Promise<void> {
  await h.waitFor(
    `${count} queue notices of ${runId} read`,
    async () => h.logLines.filter((line) => line.includes(runId) && line.includes('sandboxes queue')).length >= count,
    60_000,
  );
}

async function untilStatus(userId: string, runId: string, status: Run['status']): Promise<Run> {
  return h.waitFor(
    `status ${status}`,
    async () => {
      const run = await h.getRun(userId, runId);
      return run.status === status ? run : undefined;
    },
    90_000,
  );
}

describe('a queued run is not failed for waiting: each notice restarts its start deadline, which counts from leaving the queue', () => {
  test(
    'renewed notices past several start deadlines, then dequeued, allocated, success',
    sideBySide.body(async () => {
      const { userId, runId, createdAt } = await newRun();
      // Renewals every 2 s (well within the window) until past createdAt + 2 start windows.
      let sent = 0;
      while (Date.now() < Date.parse(createdAt) + 2 * START_TIMEOUT_MS) {
        await notice(runId, 'queued');
        sent += 1;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
      await notice(runId, 'dequeued');
      await noticeRead(runId, sent + 1);
      await h.allocate(runId);
      await h.event(runId, 0);
      await h.finish(runId, { status: 'success', error: null, failure: null, eventCount: 1 });
      const run = await untilStatus(userId, runId, 'success');
      expect(run.error).toBeNull();
    }),
  );
});

describe('a queue that stops renewing lets the start deadline pass: the watchdog fails the run, saying it waited in a queue', () => {
  test(
    'one queued notice, then silence: failed sandbox_allocation with the queue in its error',
    sideBySide.body(async () => {
      const { userId, runId } = await newRun();
      await notice(runId, 'queued', 'user_full');
      await noticeRead(runId, 1);
      const run = await untilStatus(userId, runId, 'failed');
      expect(run.error).toBe('no sandbox was allocated: the run waited in the sandboxes queue, which sent no word for 15 s');
    }),
  );

  test(
    'dequeued, then no allocation within the start deadline: failed, counted from leaving the queue',
    sideBySide.body(async () => {
      const { userId, runId } = await newRun();
      await notice(runId, 'queued');
      await noticeRead(runId, 1);
      await notice(runId, 'dequeued');
      await noticeRead(runId, 2);
      const run = await untilStatus(userId, runId, 'failed');
      expect(run.error).toBe('no sandbox was allocated within 15 s of the run leaving the sandboxes queue');
    }),
  );

  test(
    'a notice of an ended run changes nothing',
    sideBySide.body(async () => {
      const { userId, runId } = await newRun();
      const failed = await untilStatus(userId, runId, 'failed');
      expect(failed.error).toBe('no sandbox was allocated within 15 s');
      await notice(runId, 'queued');
      await h.waitFor('the late notice read', async () => h.logLines.some((line) => line.includes(runId) && line.includes('queue notice of an ended run')));
      expect(await h.getRun(userId, runId)).toEqual(failed);
    }),
  );
});
