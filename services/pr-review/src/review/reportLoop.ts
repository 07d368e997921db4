// The loop that makes due reports (an automation run just ended, or a host failure waited out) and
// releases deferred attempts whose blocker has ended. Crash-safe: a report is claimed with a lease
// and made again after it; a held attempt is released by whoever sees its head free.
import { isAppError } from '@ars/errors';
import { sanitizeText } from '@ars/sanitize';
import { startPeriodicPass, type PeriodicPass } from '@ars/service';
import { SourceHostError } from '@ars/source-host';
import type { AttemptDoc } from '../store/collections.js';
import type { PrReviewDeps } from './deps.js';
import { markInProgress } from './queueAttempt.js';
import { reportAttempt } from './reportAttempt.js';

/** How long one report may take before another pass takes it over. */
const REPORT_LEASE_MS = 120_000;
/** A refusal that retrying may not cure (403, 404, 422) is tried this often (all the report's tries count) before the attempt fails. */
const REFUSED_TRIES = 5;
/** A host or peer that is down is tried until this many tries (with backoff to 5 minutes: about a day). */
const UNAVAILABLE_TRIES = 300;
const BATCH = 20;
/** A running attempt nothing changed for this long has its automation run asked after (a lost or early ending message). */
const CHECK_AFTER_MS = 30_000;
const TERMINAL = new Set(['success', 'failed', 'cancelled']);
/** Queueing takes seconds; an attempt still without its automation run after this was cut short (a crash, a restart). */
const QUEUEING_LIMIT_MS = 5 * 60_000;

export interface ReportLoop {
  kick(): void;
  stop(): Promise<void>;
}

export function startReportLoop(deps: PrReviewDeps, pollMs: number): ReportLoop {
  const pass: PeriodicPass = startPeriodicPass(
    async () => {
      await abandonInterrupted(deps);
      await noticeEndedRuns(deps);
      await makeDueReports(deps);
      await releaseFreeHeads(deps);
    },
    pollMs,
    (error) => deps.logger.error({ err: error }, 'report pass failed'),
  );
  return { kick: () => void pass.runOnce(), stop: () => pass.stop() };
}

async function makeDueReports(deps: PrReviewDeps): Promise<void> {
  for (const due of await deps.attempts.reportsDue(new Date(), BATCH)) {
    const claimed = await deps.attempts.claimReport(due._id, new Date(), REPORT_LEASE_MS);
    if (!claimed) continue;
    try {
      await reportAttempt(deps, claimed);
    } catch (error) {
      await reportFailed(deps, claimed, error);
    }
    // Its head is free now: the next held attempt on it starts without waiting for a pass.
    await releaseFreeHeads(deps);
  }
}

/** When to try a failed report again, or null to give up (the attempt then fails). */
export function retryDelayMs(error: unknown, tries: number): number | null {
  const backoff = Math.min(2 ** Math.min(tries, 16) * 1_000, 300_000);
  if (error instanceof SourceHostError) {
    if (error.kind === 'rate_limited') return Math.max(1, error.retryAfterSeconds ?? 60) * 1_000;
    if (error.kind === 'unavailable') return tries < UNAVAILABLE_TRIES ? backoff : null;
    return tries < REFUSED_TRIES ? backoff : null;
  }
  if (isAppError(error) && error.code === 'NOT_FOUND') return tries < REFUSED_TRIES ? backoff : null;
  return tries < UNAVAILABLE_TRIES ? backoff : null;
}

async function reportFailed(deps: PrReviewDeps, attempt: AttemptDoc, error: unknown): Promise<void> {
  const message = sanitizeText(error instanceof Error ? error.message : String(error), { cap: 2_000, knownSecrets: deps.secrets });
  const delay = retryDelayMs(error, attempt.reportTries);
  if (delay !== null) {
    deps.logger.warn({ attempt_id: attempt._id, tries: attempt.reportTries, retry_in_ms: delay, err: error }, 'review report failed; trying again later');
    await deps.attempts.update(attempt._id, { reportDueAt: new Date(Date.now() + delay), error: message });
    return;
  }
  deps.logger.error({ attempt_id: attempt._id, tries: attempt.reportTries, err: error }, 'review report failed for good');
  await deps.attempts.update(attempt._id, { status: 'failed', reportDueAt: null, error: `The review could not be reported: ${message}`, endedAt: new Date() });
}

/** Each held attempt whose head has no older live attempt starts (one per head: the next one waits for it). */
async function releaseFreeHeads(deps: PrReviewDeps): Promise<void> {
  for (const held of await deps.attempts.held(BATCH)) {
    if (!held.automationRunId || (await deps.attempts.liveBefore(held))) continue;
    try {
      await deps.automations.releaseRun(held.userId, held.automationId, held.automationRunId);
      await deps.attempts.update(held._id, { released: true, status: 'running' });
      const access = await deps.catalog.repoAccess(held.userId, held.repoId);
      await markInProgress(deps, deps.hosts(access), held);
      deps.logger.info({ attempt_id: held._id, automation_run_id: held.automationRunId }, 'deferred review attempt released');
    } catch (error) {
      deps.logger.warn({ attempt_id: held._id, err: error }, 'a deferred review attempt could not be released yet');
    }
  }
}

/**
 * Running attempts nothing changed for CHECK_AFTER_MS: their automation run is asked after, and an
 * ended one gets its report due (an ending message that came before the attempt knew its run, or was lost).
 */
async function noticeEndedRuns(deps: PrReviewDeps): Promise<void> {
  for (const attempt of await deps.attempts.quietRunning(new Date(Date.now() - CHECK_AFTER_MS), BATCH)) {
    if (!attempt.automationRunId) continue;
    try {
      const run = await deps.automations.getRun(attempt.userId, attempt.automationId, attempt.automationRunId);
      if (run && TERMINAL.has(run.status)) {
        const status = run.status as 'success' | 'failed' | 'cancelled';
        await deps.attempts.update(attempt._id, { runEnded: { status, error: run.error }, reportDueAt: new Date(), reportTries: 0 });
      } else if (!run) {
        await deps.attempts.update(attempt._id, { runEnded: { status: 'cancelled', error: 'the review automation run is gone' }, reportDueAt: new Date() });
      } else {
        await deps.attempts.update(attempt._id, {});
      }
    } catch (error) {
      deps.logger.warn({ attempt_id: attempt._id, err: error }, 'could not ask after a review automation run');
    }
  }
}

/**
 * Attempts whose queueing was cut short (the process died between the attempt and its automation
 * run) would hold their head forever: they fail, and their check run is completed `cancelled`.
 */
async function abandonInterrupted(deps: PrReviewDeps): Promise<void> {
  for (const attempt of await deps.attempts.stuckQueued(new Date(Date.now() - QUEUEING_LIMIT_MS), BATCH)) {
    const error = 'The review was never started: its queueing was interrupted; rerun it';
    await deps.attempts.update(attempt._id, { status: 'failed', error, endedAt: new Date() });
    deps.logger.warn({ attempt_id: attempt._id }, 'interrupted review attempt failed');
    if (attempt.checkRunId === null) continue;
    try {
      const { host, ref } = deps.hosts(await deps.catalog.repoAccess(attempt.userId, attempt.repoId));
      await host.updateCheckRun(ref, attempt.checkRunId, {
        status: 'completed',
        conclusion: 'cancelled',
        output: { title: 'The review was never started', summary: error },
      });
    } catch (hostError) {
      deps.logger.warn({ attempt_id: attempt._id, err: hostError }, 'the interrupted attempt’s check run could not be completed');
    }
  }
}
