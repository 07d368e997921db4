import { SideBySide } from '@ars/testenv';
import { startRunsHarness, type RunsHarness } from '../testing/runsHarness.js';
import type { Run } from '../domain/runView.js';

// Each test has a run of its own and waits on the watchdog's real deadlines: every test of the file
// waits side by side (SideBySide: each body starts when the harness is up), not one rule after another.
// Short deadlines so the watchdog acts within seconds: start 10 s, harness limit 10 s, grace 1 s. The
// lost-run rules need an allocation and an event published at once to be read before the deadlines:
// on a CI machine whose two cores every suite shares, that once took over 5 s (the run ended before
// it was seen streaming), so the deadlines are twice what they were.
let h: RunsHarness;
const sideBySide = new SideBySide();
beforeAll(async () => {
  h = await startRunsHarness({ RUN_START_TIMEOUT_MS: '10000', RUN_TIMEOUT_MS: '10000', RUN_LOST_GRACE_MS: '1000', WATCHDOG_INTERVAL_MS: '200' });
  await h.watchFinished();
  sideBySide.start();
});
afterAll(async () => {
  await h.stop();
});

async function newRun(): Promise<{ userId: string; runId: string }> {
  const { userId, repoId } = await h.newTenant();
  const run = (await h.start(userId, { repoId, prompt: 'do it' })).data;
  return { userId, runId: run.runId };
}

async function untilStatus(userId: string, runId: string, status: Run['status'], timeoutMs = 30_000): Promise<Run> {
  return h.waitFor(
    `status ${status}`,
    async () => {
      const run = await h.getRun(userId, runId);
      return run.status === status ? run : undefined;
    },
    timeoutMs,
  );
}

describe('a pending run with no sandbox allocated by startBy becomes failed: "no sandbox was allocated within N s"', () => {
  test(
    'failed with that error; runs.finished (failed, sandbox_allocation) published; sandboxes told not to start it',
    sideBySide.body(async () => {
      const { userId, runId } = await newRun();
      const run = await untilStatus(userId, runId, 'failed');
      expect(run.error).toBe('no sandbox was allocated within 10 s');
      const finished = await h.watchFinished();
      const messages = await h.waitFor('runs.finished', async () => finished.get(runId));
      expect(messages[0]?.data).toEqual({
        runId,
        status: 'failed',
        error: 'no sandbox was allocated within 10 s',
        failure: 'sandbox_allocation',
        eventCount: 0,
      });
      await h.waitFor('the cancel sent to sandboxes', async () => h.sandboxes.cancels.some((c) => c.runId === runId && c.userId === userId));
    }),
  );

  test(
    'an allocation arriving after that changes nothing',
    sideBySide.body(async () => {
      const { userId, runId } = await newRun();
      const failed = await untilStatus(userId, runId, 'failed');
      await h.allocate(runId, 'too-late');
      await h.event(runId, 0);
      await h.waitFor('the late event read', async () => h.logLines.some((line) => line.includes(runId) && line.includes('agent event of an ended run')));
      expect(await h.getRun(userId, runId)).toEqual(failed);
      expect((await h.events(userId, runId)).events).toEqual([]);
    }),
  );
});

describe('a live run with no run.finished by createdAt + timeoutMs + RUN_LOST_GRACE_MS becomes failed: "the sandbox was lost: …"', () => {
  test(
    'allocated and streaming, then silent: failed as lost; its events stay; a late finish changes nothing',
    sideBySide.body(async () => {
      const { userId, runId } = await newRun();
      await h.allocate(runId);
      await h.event(runId, 0);
      await untilStatus(userId, runId, 'streaming');
      const run = await untilStatus(userId, runId, 'failed');
      expect(run.error).toMatch(/^the sandbox was lost: no result within 11 s of the start/);
      expect(Date.now()).toBeGreaterThan(Date.parse(run.createdAt) + 11_000);
      expect((await h.events(userId, runId)).events).toHaveLength(1);
      const finished = await h.watchFinished();
      const messages = await h.waitFor('runs.finished', async () => finished.get(runId));
      expect(messages[0]?.data).toMatchObject({ runId, status: 'failed', failure: 'sandbox_lost', eventCount: 1 });

      await h.bus.publish('runs.finished', {
        key: runId,
        type: 'run.finished',
        id: `${runId}:late-success`,
        data: { runId, status: 'success', error: null, failure: null, eventCount: 1 },
      });
      await h.waitFor('the late finish read', async () => h.logLines.some((line) => line.includes(runId) && line.includes('finish of an ended run')));
      expect(await h.getRun(userId, runId)).toEqual(run);
    }),
  );

  test(
    'a finish held for events that never arrive is applied after the grace, as the sandbox reported it',
    sideBySide.body(async () => {
      const { userId, runId } = await newRun();
      await h.allocate(runId);
      await h.event(runId, 0);
      await untilStatus(userId, runId, 'streaming');
      await h.finish(runId, { status: 'success', error: null, failure: null, eventCount: 3 });
      const run = await untilStatus(userId, runId, 'success');
      expect(run.error).toBeNull();
      expect((await h.events(userId, runId)).events).toHaveLength(1);
      expect(h.logLines.some((line) => line.includes(runId) && line.includes('run finished without all its events'))).toBe(true);
    }),
  );

  test(
    'a run its sandbox finished in time is left alone after its deadlines pass',
    sideBySide.body(async () => {
      const { userId, runId } = await newRun();
      await h.allocate(runId);
      await h.event(runId, 0);
      await h.finish(runId, { status: 'success', error: null, failure: null, eventCount: 1 });
      const done = await untilStatus(userId, runId, 'success');
      // A later run left silent is failed as lost once a watchdog pass is past its lostBy, hence past
      // this run's too (created earlier, same limits): the pass that would have failed this run ran.
      const marker = await newRun();
      await h.allocate(marker.runId);
      await untilStatus(marker.userId, marker.runId, 'failed');
      expect(await h.getRun(userId, runId)).toEqual(done);
    }),
  );
});

describe('a terminal run never changes again: a runs.sandbox-allocated read after its end changes nothing', () => {
  test(
    'ended by its sandbox before the allocation was read: the run stays as it ended',
    sideBySide.body(async () => {
      const { userId, runId } = await newRun();
      await h.finish(runId, { status: 'failed', error: 'could not clone the repository', failure: 'sandbox_allocation', eventCount: 0 });
      const ended = await untilStatus(userId, runId, 'failed');
      expect(ended.sandboxRecordId).toBeNull();
      await h.allocate(runId, 'after-the-end');
      await h.waitFor('the late allocation read', async () =>
        h.logLines.some((line) => line.includes(runId) && line.includes('sandbox allocation changed nothing')),
      );
      expect(await h.getRun(userId, runId)).toEqual(ended);
    }),
  );

  test(
    'ended by the watchdog: the same, and the allocation is not stored in the database either',
    sideBySide.body(async () => {
      const { userId, runId } = await newRun();
      const failed = await untilStatus(userId, runId, 'failed');
      await h.allocate(runId, 'after-the-watchdog');
      await h.waitFor('the late allocation read', async () =>
        h.logLines.some((line) => line.includes(runId) && line.includes('sandbox allocation changed nothing')),
      );
      expect(await h.getRun(userId, runId)).toEqual(failed);
      expect(await h.db.collection('runs').findOne({ _id: runId as never }, { projection: { sandboxRecordId: 1, sandboxId: 1, runtime: 1 } })).toEqual({
        _id: runId,
        sandboxRecordId: null,
        sandboxId: null,
        runtime: { provider: null, runId: null },
      });
    }),
  );
});

describe('a run the watchdog failed is not changed by a later finish, even one naming its sandbox', () => {
  test(
    'failed for no allocation by startBy; then its sandbox’s success with the allocation: the run stays as the watchdog ended it',
    sideBySide.body(async () => {
      const { userId, runId } = await newRun();
      const failed = await untilStatus(userId, runId, 'failed');
      // Not `<runId>:finished`: the watchdog's own finish of the run has that id, so runs would skip it as read.
      await h.finish(
        runId,
        { status: 'success', error: null, failure: null, eventCount: 0, ...h.allocation(runId, 'after-the-watchdog') },
        `${runId}:sandbox-finished`,
      );
      await h.waitFor('the late finish read', async () => h.logLines.some((line) => line.includes(runId) && line.includes('finish of an ended run')));
      expect(await h.getRun(userId, runId)).toEqual(failed);
      expect(failed).toMatchObject({ sandboxRecordId: null, sandboxId: null, runtime: { provider: null, runId: null } });
    }),
  );
});

describe('a finish names the run’s sandbox: one held for events that never arrive brings its allocation when the watchdog applies it', () => {
  test(
    'never allocated, finish held; after the grace the run ends as its sandbox reported, with the allocation the finish named',
    sideBySide.body(async () => {
      const { userId, runId } = await newRun();
      await h.finish(runId, { status: 'success', error: null, failure: null, eventCount: 2, ...h.allocation(runId, 'held-record') });
      const run = await untilStatus(userId, runId, 'success');
      expect(run).toMatchObject(h.allocation(runId, 'held-record'));
      expect(h.logLines.some((line) => line.includes(runId) && line.includes('run finished without all its events'))).toBe(true);
    }),
  );
});

describe('a run the watchdog fails frees its conversation and workspace session: the next run of them is accepted', () => {
  test(
    '409 while live, 202 once failed; the failed run holds no live slot',
    sideBySide.body(async () => {
      const { userId, repoId } = await h.newTenant();
      const body = { repoId, prompt: 'do it', conversationId: 'c1', workspaceSessionId: 'w1' };
      const first = (await h.start(userId, body)).data;
      expect((await h.start(userId, body)).status).toBe(409);
      await untilStatus(userId, first.runId, 'failed');
      const stored = await h.db.collection('runs').findOne({ _id: first.runId as never });
      expect(stored).not.toHaveProperty('liveConversation');
      expect(stored).not.toHaveProperty('liveWorkspaceSession');
      const next = await h.start(userId, body);
      expect(next.status).toBe(202);
      expect(next.data.replayed).toBe(false);
    }),
  );
});
