import { randomUUID } from 'node:crypto';
import { startRunsHarness, type RunsHarness } from '../testing/runsHarness.js';
import type { Run } from '../domain/runView.js';
import { RunStore } from '../store/runs.js';

let h: RunsHarness;
beforeAll(async () => {
  h = await startRunsHarness();
});
afterAll(async () => {
  await h.stop();
});

async function newRun(): Promise<{ userId: string; runId: string }> {
  const { userId, repoId } = await h.newTenant();
  const run = (await h.start(userId, { repoId, prompt: 'do it' })).data;
  return { userId, runId: run.runId };
}

async function untilStatus(userId: string, runId: string, status: Run['status']): Promise<Run> {
  return h.waitFor(`status ${status}`, async () => {
    const run = await h.getRun(userId, runId);
    return run.status === status ? run : undefined;
  });
}

describe('a redelivered or re-sent event is stored once (unique (runId, seq))', () => {
  test('the same message delivered twice: one event', async () => {
    const { userId, runId } = await newRun();
    await h.event(runId, 0, { message: 'first' });
    await h.event(runId, 0, { message: 'first' });
    await h.event(runId, 1, { message: 'second' });
    await h.waitFor('two events', async () => (await h.events(userId, runId)).events.length === 2);
    await h.finish(runId, { status: 'success', error: null, failure: null, eventCount: 2 });
    await untilStatus(userId, runId, 'success');
    expect((await h.events(userId, runId)).events.map((e) => e.message)).toEqual(['first', 'second']);
  });

  test('the same seq re-sent under another message id: still one event, the first one kept', async () => {
    const { userId, runId } = await newRun();
    await h.event(runId, 0, { message: 'original' });
    await h.event(runId, 0, { message: 'resent' }, `resent-${randomUUID()}`);
    await h.event(runId, 1, { message: 'next' });
    await h.finish(runId, { status: 'success', error: null, failure: null, eventCount: 2 });
    await untilStatus(userId, runId, 'success');
    await h.waitFor('two events', async () => (await h.events(userId, runId)).events.length === 2);
    expect((await h.events(userId, runId)).events.map((e) => e.message)).toEqual(['original', 'next']);
    expect(await h.db.collection('run_events').countDocuments({ runId })).toBe(2);
  });
});

describe('late messages for a terminal run change nothing', () => {
  test('a finish after the finish: the first terminal status and error stay', async () => {
    const { userId, runId } = await newRun();
    await h.finish(runId, { status: 'success', error: null, failure: null, eventCount: 0 });
    const done = await untilStatus(userId, runId, 'success');
    await h.bus.publish('runs.finished', {
      key: runId,
      type: 'run.finished',
      id: `${runId}:finished-again`,
      data: { runId, status: 'failed', error: 'too late', failure: 'agent', eventCount: 0 },
    });
    await h.waitFor('the late finish read', async () => h.logLines.some((line) => line.includes(runId) && line.includes('finish of an ended run')));
    expect(await h.getRun(userId, runId)).toEqual(done);
  });

  test('an event after the end (seq at or past the finish’s eventCount) is not stored and moves nothing', async () => {
    const { userId, runId } = await newRun();
    await h.event(runId, 0);
    await untilStatus(userId, runId, 'streaming');
    await h.finish(runId, { status: 'success', error: null, failure: null, eventCount: 1 });
    const done = await untilStatus(userId, runId, 'success');
    await h.event(runId, 1, { message: 'after the end' });
    await h.waitFor('the late event read', async () => h.logLines.some((line) => line.includes(runId) && line.includes('agent event of an ended run')));
    expect((await h.events(userId, runId)).events).toHaveLength(1);
    expect(await h.getRun(userId, runId)).toEqual(done);
  });

  test('a second allocation does not replace the first', async () => {
    const { userId, runId } = await newRun();
    await h.allocate(runId, 'first-record');
    await h.waitFor('allocation', async () => (await h.getRun(userId, runId)).sandboxRecordId === 'first-record');
    await h.bus.publish('runs.sandbox-allocated', {
      key: runId,
      type: 'run.sandbox-allocated',
      id: `${runId}:allocated-again`,
      data: { runId, sandboxRecordId: 'second-record', sandboxId: null, runtime: { provider: 'local', runId: 'other' } },
    });
    await h.waitFor('the second allocation read', async () =>
      h.logLines.some((line) => line.includes(runId) && line.includes('sandbox allocation changed nothing')),
    );
    expect((await h.getRun(userId, runId)).sandboxRecordId).toBe('first-record');
  });
});

describe('a finish read before the run’s last events (topics are consumed independently) is held: a terminal run shows every event', () => {
  test('the run stays live until the events the finish counts are stored, then takes its status', async () => {
    const { userId, runId } = await newRun();
    await h.finish(runId, { status: 'success', error: null, failure: null, eventCount: 3 });
    await h.waitFor('the finish held', async () => h.logLines.some((line) => line.includes(runId) && line.includes('finish held until its events are stored')));
    expect((await h.getRun(userId, runId)).status).toBe('pending');
    await h.event(runId, 0);
    await h.event(runId, 1);
    await untilStatus(userId, runId, 'streaming');
    await h.event(runId, 2);
    await untilStatus(userId, runId, 'success');
    const { run, events } = await h.events(userId, runId);
    expect(events.map((e) => e.id)).toEqual([0, 1, 2].map((seq) => `${runId}:event:${seq}`));
    expect(run).toMatchObject({ status: 'success', error: null });
  });

  test('a held failure keeps its error', async () => {
    const { userId, runId } = await newRun();
    await h.finish(runId, { status: 'failed', error: 'the agent gave up', failure: 'agent', eventCount: 1 });
    await h.event(runId, 0);
    const run = await untilStatus(userId, runId, 'failed');
    expect(run.error).toBe('the agent gave up');
    expect((await h.events(userId, runId)).events).toHaveLength(1);
  });
});

const NO_ALLOCATION = { sandboxRecordId: null, sandboxId: null, runtime: { provider: null, runId: null } };

describe('a finish names the run’s sandbox: read before the allocation (another topic), it leaves the terminal run with its sandboxRecordId, sandboxId and runtime; the late allocation then changes nothing', () => {
  test('success read first, with its allocation: the run ends allocated; the runs.sandbox-allocated read after it writes nothing', async () => {
    const { userId, runId } = await newRun();
    const allocation = h.allocation(runId, 'record-of-the-finish');
    await h.finish(runId, { status: 'success', error: null, failure: null, eventCount: 0, ...allocation });
    const ended = await untilStatus(userId, runId, 'success');
    expect(ended).toMatchObject({
      sandboxRecordId: 'record-of-the-finish',
      sandboxId: 'local-record-of-the-finish',
      runtime: { provider: 'local', runId: `session-${runId}` },
    });
    await h.allocate(runId, 'record-of-the-finish');
    await h.waitFor('the late allocation read', async () =>
      h.logLines.some((line) => line.includes(runId) && line.includes('sandbox allocation changed nothing')),
    );
    expect(await h.getRun(userId, runId)).toEqual(ended);
  });

  test('a finish held for its events brings its allocation with the end', async () => {
    const { userId, runId } = await newRun();
    await h.finish(runId, { status: 'failed', error: 'the agent gave up', failure: 'agent', eventCount: 1, ...h.allocation(runId, 'held-record') });
    await h.waitFor('the finish held', async () => h.logLines.some((line) => line.includes(runId) && line.includes('finish held until its events are stored')));
    expect(await h.getRun(userId, runId)).toMatchObject({ status: 'pending', ...NO_ALLOCATION });
    await h.event(runId, 0);
    expect(await untilStatus(userId, runId, 'failed')).toMatchObject({
      error: 'the agent gave up',
      sandboxRecordId: 'held-record',
      sandboxId: 'local-held-record',
    });
  });
});

describe('a finish without an allocation (its sandbox could not be allocated) leaves sandboxRecordId, sandboxId and runtime null', () => {
  test('failed sandbox_allocation, no allocation named: the failed run has none', async () => {
    const { userId, runId } = await newRun();
    await h.finish(runId, { status: 'failed', error: 'the repository could not be cloned', failure: 'sandbox_allocation', eventCount: 0 });
    expect(await untilStatus(userId, runId, 'failed')).toMatchObject({ error: 'the repository could not be cloned', ...NO_ALLOCATION });
  });
});

describe('a finish never overwrites an allocation already set', () => {
  test('allocated first, then a finish naming another sandbox: the run ends with the first', async () => {
    const { userId, runId } = await newRun();
    await h.allocate(runId, 'first-record');
    await h.waitFor('allocation', async () => (await h.getRun(userId, runId)).sandboxRecordId === 'first-record');
    await h.finish(runId, { status: 'success', error: null, failure: null, eventCount: 0, ...h.allocation(runId, 'other-record') });
    expect(await untilStatus(userId, runId, 'success')).toMatchObject({ ...h.allocation(runId, 'first-record') });
  });

  test('allocated while the finish was held: the allocation read meanwhile stays', async () => {
    const { userId, runId } = await newRun();
    await h.finish(runId, { status: 'success', error: null, failure: null, eventCount: 1, ...h.allocation(runId, 'finish-record') });
    await h.waitFor('the finish held', async () => h.logLines.some((line) => line.includes(runId) && line.includes('finish held until its events are stored')));
    await h.allocate(runId, 'allocated-record');
    await h.waitFor('allocation', async () => (await h.getRun(userId, runId)).sandboxRecordId === 'allocated-record');
    await h.event(runId, 0);
    expect(await untilStatus(userId, runId, 'success')).toMatchObject({ ...h.allocation(runId, 'allocated-record') });
  });

  test('allocated between the finish’s read of the run and its end: the store’s end keeps that allocation and still ends the run', async () => {
    const { userId, runId } = await newRun();
    await h.allocate(runId, 'allocated-record');
    await h.waitFor('allocation', async () => (await h.getRun(userId, runId)).sandboxRecordId === 'allocated-record');
    const ending = { status: 'success', error: null, failure: null, finishedBy: 'sandbox', finishedEventCount: 0 } as const;
    expect(await new RunStore(h.db).end(runId, 'pending', { ...ending, allocation: h.allocation(runId, 'finish-record') })).toBe(true);
    expect(await h.getRun(userId, runId)).toMatchObject({ status: 'success', ...h.allocation(runId, 'allocated-record') });
  });
});

describe('messages of unknown runs are ignored and the consumer goes on', () => {
  test('an event, an allocation and a finish of a run runs never made; then a real run is still handled', async () => {
    const ghost = `ghost-${randomUUID()}`;
    await h.allocate(ghost);
    await h.event(ghost, 0);
    await h.finish(ghost, { status: 'success', error: null, failure: null, eventCount: 1 });
    const { userId, runId } = await newRun();
    await h.event(runId, 0);
    await untilStatus(userId, runId, 'streaming');
    expect(await h.db.collection('run_events').countDocuments({ runId: ghost })).toBe(0);
    expect(await h.db.collection('runs').countDocuments({ _id: ghost as unknown as never })).toBe(0);
  });
});
