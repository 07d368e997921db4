import { DEFAULT_RESTART_POLICY, nextRestart } from './restartPolicy.js';

describe('a crashed service is restarted after 1 s, 2 s, 4 s … capped at 30 s, from 1 s again once it stayed up a while', () => {
  test('consecutive crashes double the wait up to the cap', () => {
    const delays: number[] = [];
    let attempt = 0;
    for (let i = 0; i < 8; i += 1) {
      const next = nextRestart(DEFAULT_RESTART_POLICY, attempt, 500);
      attempt = next.attempt;
      delays.push(next.delayMs);
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
    expect(attempt).toBe(8);
  });

  test('a crash after staying up stableAfterMs starts over at attempt 1', () => {
    expect(nextRestart(DEFAULT_RESTART_POLICY, 6, DEFAULT_RESTART_POLICY.stableAfterMs)).toEqual({ attempt: 1, delayMs: 1_000 });
    expect(nextRestart(DEFAULT_RESTART_POLICY, 6, DEFAULT_RESTART_POLICY.stableAfterMs - 1)).toEqual({ attempt: 7, delayMs: 30_000 });
  });

  test('a huge attempt count does not overflow the cap', () => {
    expect(nextRestart(DEFAULT_RESTART_POLICY, 10_000, 0).delayMs).toBe(30_000);
  });
});
