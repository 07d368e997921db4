import { AppError } from '@ars/errors';
import { ok, pathParam, requestBody, validateBody, type Router } from '@ars/http-app';
import type { PrReviewDeps } from '../review/deps.js';
import { onHost } from '../review/hostFailures.js';
import { reachRepo } from '../review/pullRequestAccess.js';
import { queueAttempt } from '../review/queueAttempt.js';
import type { AttemptDoc } from '../store/collections.js';
import { PULL_REQUEST_BODY_SCHEMA, type PullRequestBody } from './bodies.js';

const parseReview = validateBody<PullRequestBody>(PULL_REQUEST_BODY_SCHEMA);

/** An attempt as the internal routes answer it. */
export interface AttemptView {
  id: string;
  repoId: string;
  prNumber: number;
  headSha: string;
  status: AttemptDoc['status'];
  deferred: boolean;
  automationId: string;
  automationRunId: string | null;
  checkRunId: number | null;
  error: string | null;
  findings: AttemptDoc['findings'];
}

export const attemptView = (attempt: AttemptDoc): AttemptView => ({
  id: attempt._id,
  repoId: attempt.repoId,
  prNumber: attempt.prNumber,
  headSha: attempt.headSha,
  status: attempt.status,
  deferred: attempt.deferred,
  automationId: attempt.automationId,
  automationRunId: attempt.automationRunId,
  checkRunId: attempt.checkRunId,
  error: attempt.error,
  findings: attempt.findings,
});

/**
 * `POST /internal/users/:userId/pr-reviews/reviews` `{repoId, prNumber}` → 201 `{attempt}`: the first
 * review of a pull request's head, as its opening (or a new head) asks for one: no earlier check run
 * is needed. 404 for a repository or pull request that is not there; 409 when it is closed or has no
 * access token. The webhooks and the development account's pull request come through here.
 */
export function startReview(router: Router, deps: PrReviewDeps): void {
  router.post('/users/:userId/pr-reviews/reviews', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const body = parseReview(requestBody(ctx));
    const reach = await reachRepo(deps, userId, body.repoId);
    if (reach.kind === 'no-token') throw AppError.conflict(`No source-host access token for ${reach.fullName}`);
    const { host, ref } = reach.onHost;
    const pullRequest = await onHost(reach.access.fullName, () => host.getPullRequest(ref, body.prNumber));
    if (!pullRequest) throw AppError.notFound(`Pull request #${body.prNumber} not found in ${reach.access.fullName}`);
    if (pullRequest.state === 'closed') throw AppError.conflict(`Pull request #${body.prNumber} is closed`);
    const queued = await queueAttempt(deps, { userId, repoId: body.repoId, access: reach.access, onHost: reach.onHost, pullRequest, trigger: 'opened' });
    ok(ctx, { attempt: attemptView(queued.attempt) }, 201);
  });

  router.get('/users/:userId/pr-reviews/attempts/:attemptId', async (ctx) => {
    const attempt = await deps.attempts.findOwned(pathParam(ctx, 'userId'), pathParam(ctx, 'attemptId'));
    if (!attempt) throw AppError.notFound('Review attempt not found');
    ok(ctx, { attempt: attemptView(attempt) });
  });
}
