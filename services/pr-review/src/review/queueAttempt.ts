// A new review attempt of a pull request's head: the attempt, its check run on the host (external_id
// = the attempt), its automation run (held when another attempt on the head is live). Used by the
// rerun route, the first review of an opened or updated pull request, and webhooks.
import { randomUUID } from 'node:crypto';
import type { RepoAccess } from '@ars/catalog/client';
import { AppError, isAppError } from '@ars/errors';
import { sanitizeText } from '@ars/sanitize';
import type { PullRequest } from '@ars/source-host';
import { REVIEW_CHECK_NAME } from '../domain/rerun.js';
import { reviewInput } from '../domain/reviewTemplate.js';
import type { AttemptDoc, AttemptTrigger } from '../store/collections.js';
import type { PrReviewDeps } from './deps.js';
import { onHost } from './hostFailures.js';
import { reviewAutomationFor } from './reviewAutomation.js';
import type { RepoOnHost } from './sourceHosts.js';

/** Where a repository's review instructions live (read at the head, included in the prompt). */
export const REVIEW_INSTRUCTIONS_PATH = '.ars/review.md';

export interface QueuedAttemptResult {
  attempt: AttemptDoc;
  /** The live attempt on the same head it waits for (deferred), or null. */
  blockingAttemptId: string | null;
  /** Its automation run's status at the answer. */
  automationRunStatus: string;
}

/**
 * Queues an attempt: inserted first (so racing attempts on one head see each other: the older one
 * runs, the newer is deferred), then the check run, the prompt's material, and the automation run
 * (held when deferred). A failure before the automation run exists undoes the attempt (and completes
 * its check run) and is thrown in the envelope: 503 for a host that is down or rate limiting, 409
 * when the attempt cannot be queued.
 */
export async function queueAttempt(
  deps: PrReviewDeps,
  input: { userId: string; repoId: string; access: RepoAccess; onHost: RepoOnHost; pullRequest: PullRequest; trigger: AttemptTrigger },
): Promise<QueuedAttemptResult> {
  const { userId, repoId, access, pullRequest } = input;
  const { host, ref } = input.onHost;
  const automationId = await reviewAutomationFor(deps, userId, access.installationId);
  const now = new Date();
  const attempt: AttemptDoc = {
    _id: randomUUID(),
    userId,
    repoId,
    installationId: access.installationId,
    provider: access.provider,
    repoFullName: access.fullName,
    hostInstallation: access.installation,
    prNumber: pullRequest.number,
    headSha: pullRequest.headSha,
    headRef: pullRequest.headRef,
    trigger: input.trigger,
    status: 'queued',
    deferred: false,
    released: true,
    automationId,
    automationRunId: null,
    versionId: null,
    checkRunId: null,
    runEnded: null,
    reportDueAt: null,
    reportTries: 0,
    error: null,
    findings: [],
    refused: [],
    createdAt: now,
    updatedAt: now,
    endedAt: null,
  };
  await deps.attempts.insert(attempt);
  const blocking = await deps.attempts.liveBefore(attempt);
  attempt.deferred = blocking !== null;
  attempt.released = blocking === null;

  try {
    const checkRun = await onHost(access.fullName, () =>
      host.createCheckRun(ref, { name: REVIEW_CHECK_NAME, headSha: pullRequest.headSha, externalId: attempt._id, status: 'queued' }),
    );
    attempt.checkRunId = checkRun.id;
  } catch (error) {
    await deps.attempts.remove(attempt._id);
    throw error;
  }
  await deps.attempts.update(attempt._id, { checkRunId: attempt.checkRunId, deferred: attempt.deferred, released: attempt.released });

  try {
    const [diff, instructions] = await onHost(access.fullName, () =>
      Promise.all([host.pullRequestDiff(ref, pullRequest.number), host.fileContent(ref, pullRequest.headSha, REVIEW_INSTRUCTIONS_PATH)]),
    );
    const reviewed = { prNumber: pullRequest.number, title: pullRequest.title, headRef: pullRequest.headRef, headSha: pullRequest.headSha };
    const run = await deps.automations.trigger(
      userId,
      automationId,
      {
        repoId,
        input: { ...reviewInput({ ...reviewed, baseRef: pullRequest.baseRef, baseSha: pullRequest.baseSha }, diff, instructions) },
        baseBranch: pullRequest.headRef,
        hold: attempt.deferred,
      },
      `pr-review:${attempt._id}`,
    );
    const automationRunId = run.jobRunId;
    if (!automationRunId) throw AppError.internal('the automations engine answered a trigger without a run id');
    const detail = await deps.automations.getRun(userId, automationId, automationRunId);
    attempt.automationRunId = automationRunId;
    attempt.versionId = detail?.versionId ?? null;
    attempt.status = attempt.deferred ? 'queued' : 'running';
    await deps.attempts.update(attempt._id, { automationRunId, versionId: attempt.versionId, status: attempt.status });
    if (!attempt.deferred) await markInProgress(deps, input.onHost, attempt);
    return { attempt, blockingAttemptId: blocking?._id ?? null, automationRunStatus: detail?.status ?? run.status };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    await abandonAttempt(deps, input.onHost, attempt, `The review could not be started: ${reason}`);
    if (isAppError(error) && (error.code === 'SERVICE_UNAVAILABLE' || error.code === 'NOT_FOUND')) throw error;
    throw AppError.conflict(
      `The review of pull request #${pullRequest.number} could not be queued: ${isAppError(error) ? error.message : 'the automations engine failed'}`,
    );
  }
}

/** The check run shows the review running (best effort: the report completes it either way). */
export async function markInProgress(deps: PrReviewDeps, onHostRepo: RepoOnHost, attempt: AttemptDoc): Promise<void> {
  if (attempt.checkRunId === null) return;
  await onHostRepo.host.updateCheckRun(onHostRepo.ref, attempt.checkRunId, { status: 'in_progress' }).catch((error: unknown) => {
    deps.logger.warn({ attempt_id: attempt._id, err: error }, 'the check run could not be marked in progress');
  });
}

/** An attempt that never got its automation run: failed, its check run completed saying why (best effort). */
async function abandonAttempt(deps: PrReviewDeps, onHostRepo: RepoOnHost, attempt: AttemptDoc, reason: string): Promise<void> {
  const error = sanitizeText(reason, { cap: 2_000, knownSecrets: deps.secrets });
  await deps.attempts.update(attempt._id, { status: 'failed', error, endedAt: new Date() });
  if (attempt.checkRunId === null) return;
  await onHostRepo.host
    .updateCheckRun(onHostRepo.ref, attempt.checkRunId, {
      status: 'completed',
      conclusion: 'cancelled',
      output: { title: 'The review could not be started', summary: error },
    })
    .catch((hostError: unknown) => deps.logger.warn({ attempt_id: attempt._id, err: hostError }, 'the abandoned check run could not be completed'));
}
