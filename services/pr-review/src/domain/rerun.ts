// `POST /pr-reviews/rerun`: which refusal, in the contract's order, or how the new attempt is queued;
// and the answer (`RerunPrReviewData`), every field with its meaning. The route gathers the facts
// (catalog, source host, attempts) and asks; nothing here does I/O.
import type { RerunPrReviewData } from '@ars/contract';
import { AppError } from '@ars/errors';

export type { RerunPrReviewData };

/** The name of our check run on a pull request's head (what `latestCheckRun` looks for). */
export const REVIEW_CHECK_NAME = 'ARS review';

/** An earlier attempt, as the decision reads it. */
export interface AttemptFacts {
  id: string;
  /** The published version of the review automation its automation run executed. */
  versionId: string;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
}

/** What the route found, each null when it does not exist. */
export interface RerunFacts {
  prNumber: number;
  repo: { id: string; fullName: string } | null;
  /** The catalog could hand out a source-host access token for the repository. */
  hasAccessToken: boolean;
  pullRequest: { state: 'open' | 'closed'; headSha: string } | null;
  /** The latest check run named REVIEW_CHECK_NAME on the head SHA. */
  latestCheckRun: { id: number; externalId: string | null } | null;
  /** The attempt the latest check run's `external_id` names, when it names one of ours. */
  linkedAttempt: AttemptFacts | null;
  /** A queued or running attempt on the same repository, pull request and head SHA. */
  liveAttemptOnHead: AttemptFacts | null;
}

export type RerunDecision = { queue: true; deferred: boolean; previousAttemptId: string; blockingAttemptId: string | null };

const LIVE: ReadonlySet<AttemptFacts['status']> = new Set(['queued', 'running']);

/**
 * The contract's order: 404 (repository, pull request, review check run), then 409 (no access
 * token, the check run not linked to a service run, the pull request closed); otherwise a new
 * attempt, deferred when another is queued or running on the same head SHA. Throws the AppError.
 */
export function decideRerun(facts: RerunFacts): RerunDecision {
  if (!facts.repo) throw AppError.notFound('Repository not found');
  if (!facts.pullRequest) throw AppError.notFound(`Pull request #${facts.prNumber} not found in ${facts.repo.fullName}`);
  if (!facts.latestCheckRun) throw AppError.notFound(`Pull request #${facts.prNumber} has no review check run on its head commit`);
  if (!facts.hasAccessToken) throw AppError.conflict(`No source-host access token for ${facts.repo.fullName}`);
  if (!facts.linkedAttempt) throw AppError.conflict(`The latest review check run of pull request #${facts.prNumber} is not linked to a service run`);
  if (facts.pullRequest.state === 'closed') throw AppError.conflict(`Pull request #${facts.prNumber} is closed`);
  const blocking = facts.liveAttemptOnHead && LIVE.has(facts.liveAttemptOnHead.status) ? facts.liveAttemptOnHead : null;
  return { queue: true, deferred: blocking !== null, previousAttemptId: facts.linkedAttempt.id, blockingAttemptId: blocking?.id ?? null };
}

/** The queued attempt, as the answer describes it. */
export interface QueuedAttempt {
  attemptId: string;
  /** Its automation run (created at once, also when deferred: held until the blocking attempt ends). */
  automationRunId: string;
  /** That automation run's status now (`pending` while held). */
  automationRunStatus: string;
  /** The review automation's published version the new attempt runs. */
  versionId: string;
}

/**
 * Every field: `queued` true (the attempt exists); `jobRunId` and `runtimeRunId` its automation run;
 * `runtimeProvider` `automations-engine`; `workflowRunId` the attempt (the check run's
 * `external_id`); `started` its automation run started now, `deferred` it waits for the attempt
 * `reason` names; `status` the automation run's status; `versionFallbackUsed` the review that is
 * re-run was made by a version no longer published, so the current one runs.
 */
export function rerunAnswer(input: {
  repoId: string;
  prNumber: number;
  decision: RerunDecision;
  previous: AttemptFacts;
  attempt: QueuedAttempt;
}): RerunPrReviewData {
  const { decision, attempt } = input;
  return {
    queued: true,
    jobRunId: attempt.automationRunId,
    prNumber: input.prNumber,
    repoId: input.repoId,
    started: !decision.deferred,
    deferred: decision.deferred,
    reason: decision.deferred ? `queued behind attempt ${decision.blockingAttemptId ?? ''} on the same head commit` : null,
    status: attempt.automationRunStatus,
    runtimeProvider: 'automations-engine',
    runtimeRunId: attempt.automationRunId,
    workflowRunId: attempt.attemptId,
    versionFallbackUsed: input.previous.versionId !== attempt.versionId,
  };
}
