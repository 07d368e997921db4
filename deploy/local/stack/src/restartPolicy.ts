/** How the local stack restarts a service that exited without being asked. */
export interface RestartPolicy {
  /** The wait before the first restart; doubled at each further attempt. */
  initialDelayMs: number;
  /** The longest wait between attempts. */
  maxDelayMs: number;
  /** A service up this long before it exits starts again from the first attempt. */
  stableAfterMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = { initialDelayMs: 1_000, maxDelayMs: 30_000, stableAfterMs: 60_000 };

/**
 * The next restart after an exit: 1 s, 2 s, 4 s … capped at `maxDelayMs`; back to the first attempt
 * when the service had stayed up `stableAfterMs` (its earlier crashes are history).
 */
export function nextRestart(policy: RestartPolicy, previousAttempt: number, upForMs: number): { attempt: number; delayMs: number } {
  const attempt = upForMs >= policy.stableAfterMs ? 1 : previousAttempt + 1;
  const delayMs = Math.min(policy.initialDelayMs * 2 ** Math.min(attempt - 1, 30), policy.maxDelayMs);
  return { attempt, delayMs };
}
