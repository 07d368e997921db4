// How a session's end becomes the `run.finished` result: one place for every failure kind.
import type { RunFailureKind } from '@ars/bus';
import type { HarnessName, HarnessResult } from '../harness/index.js';
import type { SessionResult } from '../store/collections.js';

/** Why the session's AbortSignal fired. */
export type AbortReason = 'cancel' | 'timeout' | 'shutdown' | 'publish' | 'limit';

/** The sandbox limit a run reached (its lifecycle event's `decision_code`), and the run's error saying so. */
export type LimitCode = 'process_limit' | 'memory_limit' | 'disk_limit' | 'time_limit' | 'token_budget';

export interface LimitReached {
  code: LimitCode;
  /** The run's error: it starts with the limit's name ("process limit: …"). */
  message: string;
}

export const SANDBOX_LOST_MESSAGE = 'the sandbox was lost: the sandboxes service stopped during the run';

export function failed(failure: RunFailureKind, error: string, eventCount: number): SessionResult {
  return { status: 'failed', error, failure, eventCount };
}

export function cancelled(eventCount: number): SessionResult {
  return { status: 'cancelled', error: null, failure: null, eventCount };
}

export function succeeded(eventCount: number): SessionResult {
  return { status: 'success', error: null, failure: null, eventCount };
}

/** The setting behind each sandbox limit of the local provider (a provider's hit may name its own). */
const LOCAL_LIMIT_SETTINGS = { process_limit: 'SANDBOX_PIDS', memory_limit: 'SANDBOX_MEMORY_MB', disk_limit: 'SANDBOX_DISK_MB' } as const;

/** The run's error for a sandbox limit its processes reached, naming the limit and the setting behind it (default: the local provider's). */
export function sandboxLimitReached(
  code: 'process_limit' | 'memory_limit' | 'disk_limit',
  limits: { memory_mb: number | null; pids: number | null; disk_mb: number | null },
  setting: string = LOCAL_LIMIT_SETTINGS[code],
): LimitReached {
  switch (code) {
    case 'process_limit':
      return {
        code,
        message: `process limit: a process of the run could not be started: the sandbox's ${limits.pids ?? '?'} processes and threads (${setting}) were in use`,
      };
    case 'memory_limit':
      return {
        code,
        message: `memory limit: a process of the run was killed for using more than the sandbox's ${limits.memory_mb ?? '?'} MB of memory (${setting})`,
      };
    case 'disk_limit':
      return { code, message: `disk limit: the sandbox's ${limits.disk_mb ?? '?'} MB of disk (${setting}) are full` };
  }
}

export function timeoutMessage(timeoutMs: number): string {
  const seconds = timeoutMs / 1000;
  return `time limit: the harness ran longer than ${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

/**
 * The result of a harness turn: an abort is reported by its reason (cancel → cancelled; timeout →
 * `harness_timeout`; service stopping → `sandbox_lost`; the bus unreachable → `sandbox_lost`; a
 * sandbox limit or the token budget reached → `agent`, the error naming the limit), a
 * failure is the agent's own unless the adapter says the harness crashed or could not start.
 */
export function harnessOutcome(
  harness: HarnessName,
  result: HarnessResult,
  abort: { reason: AbortReason | null; timeoutMs: number; publishError: string | null; limit?: LimitReached | null },
  eventCount: number,
): SessionResult | 'success' {
  switch (abort.reason) {
    case 'cancel':
      return cancelled(eventCount);
    case 'timeout':
      return failed('harness_timeout', timeoutMessage(abort.timeoutMs), eventCount);
    case 'shutdown':
      return failed('sandbox_lost', SANDBOX_LOST_MESSAGE, eventCount);
    case 'limit':
      // The agent's own doing (a fork bomb, an allocation, a disk filled, tokens spent): named for what it reached.
      return failed('agent', abort.limit?.message ?? 'the run reached a limit of its sandbox', eventCount);
    case 'publish':
      return failed('sandbox_lost', `the run's events could not be delivered: ${abort.publishError ?? 'the message bus was unreachable'}`, eventCount);
    case null:
      break;
  }
  if (result.status === 'success') return 'success';
  const error = result.error ?? `the ${harness} harness failed`;
  if (result.status === 'cancelled') return failed('harness_crash', `the ${harness} harness stopped unexpectedly`, eventCount);
  const crashed = error.startsWith(`${harness} harness crashed`) || error.startsWith(`${harness} harness failed to run`);
  return failed(crashed ? 'harness_crash' : 'agent', error, eventCount);
}
