import { isAppError, AppError } from '@ars/errors';
import { ok, requestBody, validateBody, type Router } from '@ars/http-app';
import { readWebhook, verifyWebhookSignature, type WebhookRequest } from '../domain/webhooks.js';
import type { PrReviewDeps } from '../review/deps.js';
import { onHost } from '../review/hostFailures.js';
import { queueAttempt } from '../review/queueAttempt.js';
import type { DeliveryOutcome } from '../store/collections.js';

/** The deliveries about installations and their repositories: the catalog's to apply (it owns installations). */
const CATALOG_EVENTS = new Set(['installation', 'installation_repositories', 'repository']);

/** A GitHub delivery as the gateway hands it over: the raw body (as text) and the headers it is read by. */
interface ForwardedDelivery {
  event: string;
  deliveryId: string;
  signature: string | null;
  payload: string;
}

const parseDelivery = validateBody<ForwardedDelivery>({
  type: 'object',
  required: ['event', 'deliveryId', 'signature', 'payload'],
  properties: {
    event: { type: 'string', maxLength: 100 },
    deliveryId: { type: 'string', minLength: 1, maxLength: 200 },
    signature: { type: ['string', 'null'], maxLength: 200 },
    payload: { type: 'string' },
  },
});

/**
 * `POST /internal/webhooks/github` (the gateway's `POST /webhooks/github` hands deliveries over): the
 * signature is checked over the raw body with `GITHUB_WEBHOOK_SECRET` (401 when it does not match,
 * 503 when no secret is configured), then `readWebhook` says what it asks: `pull_request`
 * opened/reopened/synchronize queue a first review of the head, `check_run` rerequested of our check
 * run queues a rerun; `installation`, `installation_repositories` and `repository` are handed to the
 * catalog, which keeps installations and repositories true; anything else is ignored. The one webhook
 * URL a GitHub App has, so the signature is checked and each delivery taken once here, for both. 202 `{delivery: {id, outcome, duplicate}}`; a
 * redelivery of the same `X-GitHub-Delivery` answers the first one's outcome and queues nothing. A
 * failure midway (the host down) forgets the delivery and answers 503, so GitHub's redelivery retries it.
 */
export function githubWebhook(router: Router, deps: PrReviewDeps): void {
  router.post('/webhooks/github', async (ctx) => {
    const delivery = parseDelivery(requestBody(ctx));
    if (!deps.webhookSecret) throw AppError.unavailable('GitHub webhooks are not configured (GITHUB_WEBHOOK_SECRET)');
    if (!verifyWebhookSignature(deps.webhookSecret, Buffer.from(delivery.payload, 'utf8'), delivery.signature ?? undefined)) {
      throw AppError.unauthorized('Invalid webhook signature');
    }
    const earlier = await deps.deliveries.claim(delivery.deliveryId, delivery.event);
    if (earlier) {
      ok(ctx, { delivery: { id: delivery.deliveryId, outcome: earlier.outcome, duplicate: true } }, 202);
      return;
    }
    let outcome: DeliveryOutcome;
    try {
      outcome = await handleDelivery(deps, delivery);
    } catch (error) {
      await deps.deliveries.release(delivery.deliveryId);
      throw error;
    }
    await deps.deliveries.settle(delivery.deliveryId, outcome);
    deps.logger.info({ delivery_id: delivery.deliveryId, event: delivery.event, outcome: outcome.kind }, 'github delivery handled');
    ok(ctx, { delivery: { id: delivery.deliveryId, outcome, duplicate: false } }, 202);
  });
}

function payloadOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

async function handleDelivery(deps: PrReviewDeps, delivery: ForwardedDelivery): Promise<DeliveryOutcome> {
  if (CATALOG_EVENTS.has(delivery.event)) {
    const payload = payloadOf(delivery.payload);
    if (payload === null) return { kind: 'ignored', why: 'the payload is not JSON' };
    return { kind: 'applied', applied: await deps.catalog.applyGitHubDelivery({ event: delivery.event, deliveryId: delivery.deliveryId, payload }) };
  }
  const request: WebhookRequest = readWebhook(delivery.event, payloadOf(delivery.payload));
  if (request.kind === 'ignored') return request;
  const repo = await deps.catalog.githubRepo(request.installationId, request.repoFullName).catch((error: unknown) => {
    if (isAppError(error) && error.code === 'NOT_FOUND') return null;
    throw error;
  });
  if (!repo) return { kind: 'ignored', why: `${request.repoFullName} of installation ${request.installationId} is not a repository of ours` };
  const access = await deps.catalog.repoAccess(repo.userId, repo.repoId);
  const repoOnHost = deps.hosts(access);
  const pullRequest = await onHost(access.fullName, () => repoOnHost.host.getPullRequest(repoOnHost.ref, request.prNumber));
  if (!pullRequest) return { kind: 'ignored', why: `pull request #${request.prNumber} is not on the host` };
  if (pullRequest.state === 'closed') return { kind: 'ignored', why: `pull request #${request.prNumber} is closed` };
  const queued = await queueAttempt(deps, { userId: repo.userId, repoId: repo.repoId, access, onHost: repoOnHost, pullRequest, trigger: request.trigger });
  return { kind: 'queued', attemptId: queued.attempt._id };
}
