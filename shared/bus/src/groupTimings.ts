/** A consumer group member's timings (ConsumeOptions.session). */
export interface GroupTimings {
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  heartbeatIntervalMs: number;
}

/**
 * The timings of a member from its session timeout alone (each service's `*_SESSION_TIMEOUT_MS`):
 * a rebalance timeout of at least 10 s and never below the session's, a heartbeat every tenth of
 * the session and at most every 3 s (kafkajs' default), so a member misses several before it is out.
 */
export function groupTimings(sessionTimeoutMs: number): GroupTimings {
  return {
    sessionTimeoutMs,
    rebalanceTimeoutMs: Math.max(sessionTimeoutMs, 10_000),
    heartbeatIntervalMs: Math.min(3_000, Math.floor(sessionTimeoutMs / 10)),
  };
}
