import { describe, expect, test } from '@jest/globals';
import { groupTimings } from './groupTimings.js';

describe("a member's group timings follow from its session timeout", () => {
  test('the rebalance timeout is at least 10 s and never below the session; the heartbeat a tenth of the session, at most 3 s', () => {
    expect(groupTimings(6_000)).toEqual({ sessionTimeoutMs: 6_000, rebalanceTimeoutMs: 10_000, heartbeatIntervalMs: 600 });
    expect(groupTimings(45_000)).toEqual({ sessionTimeoutMs: 45_000, rebalanceTimeoutMs: 45_000, heartbeatIntervalMs: 3_000 });
  });
});
