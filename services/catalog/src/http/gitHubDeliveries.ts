import { ok, requestBody, validateBody, type Router } from '@ars/http-app';
import { applyGitHubDelivery } from '../sourceHost/gitHubDeliveries.js';
import type { CatalogDeps } from './deps.js';

const parseDelivery = validateBody<{ event: string; deliveryId: string; payload: unknown }>({
  type: 'object',
  required: ['event', 'deliveryId', 'payload'],
  additionalProperties: false,
  properties: { event: { type: 'string', minLength: 1, maxLength: 100 }, deliveryId: { type: 'string', minLength: 1, maxLength: 200 }, payload: {} },
});

/**
 * `POST /internal/source-hosts/github/deliveries` `{event, deliveryId, payload}` → `{applied}`: a GitHub App
 * delivery whose signature pr-review checked and which it takes once (`installation`,
 * `installation_repositories`, `repository`), applied as `applyGitHubDelivery` says. 503 when GitHub
 * cannot be read now: the caller forgets the delivery so GitHub's redelivery retries it.
 */
export function gitHubDeliveries(router: Router, deps: CatalogDeps): void {
  router.post('/source-hosts/github/deliveries', async (ctx) => {
    const delivery = parseDelivery(requestBody(ctx));
    const applied = await applyGitHubDelivery(deps, deps.githubHost, delivery);
    deps.logger.info({ delivery_id: delivery.deliveryId, event: delivery.event, applied: applied.kind }, 'github delivery applied');
    ok(ctx, { applied });
  });
}
