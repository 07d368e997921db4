/** Exponential backoff: doubling from `initial`, capped at `max`. */
export interface BackoffCurve {
  initial: number;
  max: number;
}

/** The wait after the `attempt`-th failure (1 waits `initial`) on `curve`. */
export function backoffDelay(attempt: number, curve: BackoffCurve): number {
  return Math.min(curve.max, curve.initial * 2 ** Math.min(30, Math.max(0, attempt - 1)));
}

/** What a handler's failure of a message leads to. */
export type FailureVerdict =
  /** The infrastructure is away: hold the partition, retry for as long as it lasts, never count it. */
  | { kind: 'hold' }
  /** The message's own failure, tries left (or a dead-letter topic's, which has none to go to): wait `delayMs`, try again. */
  | { kind: 'retry'; delayMs: number; exhausted: boolean }
  /** A NonRetryableError, or `maxAttempts` failures: to the dead-letter topic. */
  | { kind: 'poison' };

/**
 * The retry rule of a consumer (README, Retries): an infrastructure error holds the partition
 * without counting; any other failure counts (`failures`, this one included) and is retried at
 * `backoff` until `maxAttempts` or a NonRetryableError makes the message poison. A dead-letter
 * topic has no dead-letter topic: its exhausted handler is retried at the longest backoff.
 */
export function failureVerdict(failure: {
  infrastructure: boolean;
  nonRetryable: boolean;
  failures: number;
  maxAttempts: number;
  onDeadLetterTopic: boolean;
  backoff: BackoffCurve;
}): FailureVerdict {
  if (failure.infrastructure) return { kind: 'hold' };
  const exhausted = failure.nonRetryable || failure.failures >= failure.maxAttempts;
  if (exhausted && !failure.onDeadLetterTopic) return { kind: 'poison' };
  return { kind: 'retry', exhausted, delayMs: backoffDelay(exhausted ? Number.MAX_SAFE_INTEGER : failure.failures, failure.backoff) };
}
