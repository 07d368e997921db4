import { describe, expect, test } from '@jest/globals';
import { backoffDelay, failureVerdict } from './retryPolicy.js';

const curve = { initial: 200, max: 5_000 };
const failure = { infrastructure: false, nonRetryable: false, failures: 1, maxAttempts: 3, onDeadLetterTopic: false, backoff: curve };

describe('backoff doubles from its initial wait and stops at its maximum', () => {
  test('200, 400, 800 … capped at 5,000 ms; any attempt count, however large, stays capped', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((attempt) => backoffDelay(attempt, curve))).toEqual([200, 400, 800, 1_600, 3_200, 5_000, 5_000]);
    expect(backoffDelay(Number.MAX_SAFE_INTEGER, curve)).toBe(5_000);
    expect(backoffDelay(0, curve)).toBe(200);
  });
});

describe('an outage holds the partition and never counts toward maxAttempts', () => {
  test('an infrastructure error is a hold, whatever the failures so far', () => {
    expect(failureVerdict({ ...failure, infrastructure: true, failures: 99 })).toEqual({ kind: 'hold' });
  });
});

describe("a message's own failure is retried at the backoff until maxAttempts, then it is poison", () => {
  test('failures 1 and 2 of 3 wait 200 and 400 ms; the third is poison', () => {
    expect(failureVerdict({ ...failure, failures: 1 })).toEqual({ kind: 'retry', exhausted: false, delayMs: 200 });
    expect(failureVerdict({ ...failure, failures: 2 })).toEqual({ kind: 'retry', exhausted: false, delayMs: 400 });
    expect(failureVerdict({ ...failure, failures: 3 })).toEqual({ kind: 'poison' });
  });

  test('a NonRetryableError is poison on its first failure', () => {
    expect(failureVerdict({ ...failure, nonRetryable: true })).toEqual({ kind: 'poison' });
  });
});

describe('a dead-letter topic has no dead-letter topic: its exhausted handler is retried at the longest backoff', () => {
  test('past maxAttempts, or NonRetryable, on a .dlq topic: retry after the maximum wait', () => {
    expect(failureVerdict({ ...failure, onDeadLetterTopic: true, failures: 3 })).toEqual({ kind: 'retry', exhausted: true, delayMs: 5_000 });
    expect(failureVerdict({ ...failure, onDeadLetterTopic: true, nonRetryable: true })).toEqual({ kind: 'retry', exhausted: true, delayMs: 5_000 });
    expect(failureVerdict({ ...failure, onDeadLetterTopic: true, failures: 1 })).toEqual({ kind: 'retry', exhausted: false, delayMs: 200 });
  });
});
