import { lostBefore, lostCutoffs } from './heartbeatLease.js';

const settings = { heartbeatMs: 500, lostAfterMs: 3_000 };

describe('a heartbeat older than SESSION_LOST_AFTER_MS is lost, as far as the judging pass was awake to see it', () => {
  test('awake (the previous pass one interval ago): lost before now − SESSION_LOST_AFTER_MS', () => {
    expect(lostBefore({ now: 10_000, previousPassAt: 9_500, ...settings }).getTime()).toBe(7_000);
  });

  test('the first pass of a process judges from now', () => {
    expect(lostBefore({ now: 10_000, previousPassAt: undefined, ...settings }).getTime()).toBe(7_000);
  });

  test('after a 4 s stall, a peer that heartbeat just before it is not lost; the next pass on time judges normally', () => {
    let now = 10_000;
    const next = lostCutoffs(settings, () => now);
    next();
    const peerHeartbeat = 9_900;
    now = 14_000; // stalled: the pass due at 10.5 s runs at 14 s
    expect(next().getTime()).toBeLessThan(peerHeartbeat);
    now = 14_500; // the peer has not written since: 4.6 s old, lost
    expect(next().getTime()).toBeGreaterThan(peerHeartbeat);
  });

  test('a peer silent for longer than SESSION_LOST_AFTER_MS while this process was awake is lost', () => {
    let now = 0;
    const next = lostCutoffs(settings, () => now);
    let cutoff = next();
    for (now = 500; now <= 4_000; now += 500) cutoff = next();
    expect(cutoff.getTime()).toBe(1_000);
    expect(500).toBeLessThan(cutoff.getTime());
  });
});
