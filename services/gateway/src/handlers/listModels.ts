import type { Model } from '@ars/contract';
import type { Gateway } from '../deps.js';
import type { RouteHandler } from './routeCall.js';

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
export function listModels(gateway: Gateway): RouteHandler {
  return async ({ principal }) => {
    const models = await gateway.catalog.listModels(principal.userId);
    return { models: models.map(toModel) };
  };
}
