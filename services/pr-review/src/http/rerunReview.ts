import { AppError } from '@ars/errors';
import { ok, pathParam, requestBody, validateBody, type Router } from '@ars/http-app';
import { decideRerun, rerunAnswer, REVIEW_CHECK_NAME, type AttemptFacts } from '../domain/rerun.js';
import type { PrReviewDeps } from '../review/deps.js';
import { onHost } from '../review/hostFailures.js';
import { reachRepo } from '../review/pullRequestAccess.js';
import { queueAttempt } from '../review/queueAttempt.js';
import type { AttemptDoc } from '../store/collections.js';
import { PULL_REQUEST_BODY_SCHEMA, type PullRequestBody } from './bodies.js';

const parseRerun = validateBody<PullRequestBody>(PULL_REQUEST_BODY_SCHEMA);

const facts = (attempt: AttemptDoc | null): AttemptFacts | null =>
  attempt ? { id: attempt._id, versionId: attempt.versionId ?? '', status: attempt.status } : null;

/**
 * `POST /internal/users/:userId/pr-reviews/rerun` `{repoId, prNumber}` → 200 RerunPrReviewData
 * (CONTRACT.md, POST /pr-reviews/rerun): the refusals in the contract's order (`decideRerun`), then a
 * new attempt with its check run and automation run (deferred behind a live attempt on the same head).
 * No idempotency key: every call queues a distinct attempt.
 */
export function rerunReview(router: Router, deps: PrReviewDeps): void {
  router.post('/users/:userId/pr-reviews/rerun', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const body = parseRerun(requestBody(ctx));
    const reach = await reachRepo(deps, userId, body.repoId);
    if (reach.kind === 'no-token') throw AppError.conflict(`No source-host access token for ${reach.fullName}`);
    const { access } = reach;
    const { host, ref } = reach.onHost;
    const pullRequest = await onHost(access.fullName, () => host.getPullRequest(ref, body.prNumber));
    const checkRun = pullRequest ? await onHost(access.fullName, () => host.latestCheckRun(ref, pullRequest.headSha, REVIEW_CHECK_NAME)) : null;
    const linked = checkRun?.externalId ? await deps.attempts.findOwned(userId, checkRun.externalId) : null;
    const linkedAttempt = linked && linked.repoId === body.repoId && linked.prNumber === body.prNumber ? linked : null;
    const live = pullRequest ? await deps.attempts.liveOnHead(body.repoId, body.prNumber, pullRequest.headSha) : null;
    const decision = decideRerun({
      prNumber: body.prNumber,
      repo: { id: body.repoId, fullName: access.fullName },
      hasAccessToken: true,
      pullRequest: pullRequest ? { state: pullRequest.state, headSha: pullRequest.headSha } : null,
      latestCheckRun: checkRun ? { id: checkRun.id, externalId: checkRun.externalId } : null,
      linkedAttempt: facts(linkedAttempt),
      liveAttemptOnHead: facts(live),
    });
    if (!pullRequest || !linkedAttempt) throw AppError.internal('the rerun decision queued an attempt without its pull request');
    const queued = await queueAttempt(deps, { userId, repoId: body.repoId, access, onHost: reach.onHost, pullRequest, trigger: 'rerun' });
    ok(
      ctx,
      rerunAnswer({
        repoId: body.repoId,
        prNumber: body.prNumber,
        decision: { ...decision, deferred: queued.attempt.deferred, blockingAttemptId: queued.blockingAttemptId },
        previous: facts(linkedAttempt) as AttemptFacts,
        attempt: {
          attemptId: queued.attempt._id,
          automationRunId: queued.attempt.automationRunId ?? '',
          automationRunStatus: queued.automationRunStatus,
          versionId: queued.attempt.versionId ?? '',
        },
      }),
    );
  });
}
