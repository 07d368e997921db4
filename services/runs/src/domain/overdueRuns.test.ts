import { overdueVerdict, type WatchedRun } from './overdueRuns.js';

const created = Date.parse('2026-01-01T00:00:00.000Z');
const settings = { startTimeoutMs: 120_000, lostGraceMs: 60_000 };
const run = (over: Partial<WatchedRun> = {}): WatchedRun => ({
  status: 'pending',
  sandboxRecordId: null,
  timeoutMs: 1_800_000,
  startBy: new Date(created + 120_000),
  lostBy: new Date(created + 1_800_000 + 60_000),
  heldFinish: null,
  ...over,
});
const at = (ms: number) => new Date(created + ms);

describe('a pending run with no sandbox allocated by startBy fails: "no sandbox was allocated within N s"', () => {
  test('before startBy: nothing; after: failed, failure sandbox_allocation', () => {
    expect(overdueVerdict(run(), at(119_000), settings)).toBeNull();
    expect(overdueVerdict(run(), at(120_001), settings)).toEqual({
      kind: 'fail',
      failure: 'sandbox_allocation',
      error: 'no sandbox was allocated within 120 s',
    });
  });
  test('an allocated pending run is not failed by this rule', () => {
    expect(overdueVerdict(run({ sandboxRecordId: 'sbx' }), at(121_000), settings)).toBeNull();
  });
});

describe('a live run with no result by createdAt + timeoutMs + grace fails as lost: "the sandbox was lost: …"', () => {
  test.each(['pending', 'streaming'] as const)('%s, allocated: failed after lostBy, failure sandbox_lost', (status) => {
    const live = run({ status, sandboxRecordId: 'sbx' });
    expect(overdueVerdict(live, at(1_859_000), settings)).toBeNull();
    const verdict = overdueVerdict(live, at(1_860_001), settings);
    expect(verdict).toMatchObject({ kind: 'fail', failure: 'sandbox_lost' });
    expect(verdict?.kind === 'fail' && verdict.error).toMatch(/^the sandbox was lost: no result within 1860 s of the start/);
  });
});

describe('a run whose sandbox reported its end waits for its events, then the finish is applied anyway after the grace', () => {
  test('held: neither failed for allocation nor lost; applied once it waited RUN_LOST_GRACE_MS', () => {
    const held = run({ heldFinish: { receivedAt: at(130_000) } });
    expect(overdueVerdict(held, at(130_000 + 59_000), settings)).toBeNull();
    expect(overdueVerdict(held, at(130_000 + 60_001), settings)).toEqual({ kind: 'apply_held_finish' });
    expect(overdueVerdict(run({ heldFinish: { receivedAt: at(1_859_000) } }), at(1_870_000), settings)).toBeNull();
  });
});

describe('a terminal run is never overdue', () => {
  test.each(['success', 'failed', 'cancelled'] as const)('%s', (status) => {
    expect(overdueVerdict(run({ status }), at(10_000_000), settings)).toBeNull();
  });
});
