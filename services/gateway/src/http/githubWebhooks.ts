import { ok, readRawBody, Router } from '@ars/http-app';
import type { Gateway } from '../deps.js';

/** GitHub's largest delivery (it caps payloads at 25 MB). */
const DELIVERY_LIMIT = '25mb';

export const GITHUB_WEBHOOK_PATH = '/webhooks/github';

/** What pr-review answers about a delivery. */
interface DeliveryAnswer {
  delivery: { id: string; outcome: unknown; duplicate: boolean };
}

/**
 * `POST /webhooks/github` (unversioned; no token: the signature is the authentication, checked by
 * pr-review, which holds the webhook secret): the raw body and GitHub's headers are handed to
 * pr-review's `POST /internal/webhooks/github` as they came, so the signature is checked over the
 * very bytes GitHub signed. pr-review's answer passes through (202, or 401 for a bad signature).
 */
export function githubWebhookRoutes(gateway: Gateway): Router {
  const router = new Router();
  router.post(GITHUB_WEBHOOK_PATH, async (ctx) => {
    const payload = await readRawBody(ctx, DELIVERY_LIMIT);
    const answer = await gateway.peers['pr-review'].post<DeliveryAnswer>(
      '/internal/webhooks/github',
      {
        event: ctx.get('x-github-event'),
        deliveryId: ctx.get('x-github-delivery'),
        signature: ctx.get('x-hub-signature-256') || null,
        payload,
      },
      { timeoutMs: 30_000 },
    );
    ok(ctx, answer, 202);
  });
  return router;
}
