import { ok, type RouterMiddleware } from '@ars/http-app';
import type { Gateway } from './deps.js';
import { principalOf } from './authenticateToken.js';

/** CONTRACT.md, Model: exactly these fields. */
export interface Model {
  id: string;
  provider: string;
  name: string;
  contextLength: number | null;
  capabilities: string[];
  pricing: { input: number | null; output: number | null };
}

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
    const data = await gateway.peers.catalog.get<{ models: Model[] }>(`/internal/users/${encodeURIComponent(userId)}/models`);
    ok(ctx, { models: data.models.map(toModel) });
  };
}
