import type { Model } from '@ars/contract';
import { ok, type RouterMiddleware } from '@ars/http-app';
import type { Gateway } from './deps.js';
import { principalOf } from './authenticateToken.js';

/** CONTRACT.md, Model: exactly these fields, whatever else the catalog adds. */
export function toModel(model: Model): Model {
  return {
    id: model.id,
    provider: model.provider,
    name: model.name,
    contextLength: model.contextLength,
    capabilities: model.capabilities,
    pricing: { input: model.pricing.input, output: model.pricing.output },
  };
}

/** GET /models: the models enabled and reachable for the caller (the catalog decides). */
export function listModels(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const { userId } = principalOf(ctx.state);
    const models = await gateway.catalog.listModels(userId);
    ok(ctx, { models: models.map(toModel) });
  };
}
