import { AppError } from '@ars/errors';
import { ok, validateBody, type Router, pathParam, requestBody } from '@ars/http-app';
import { PLANS, PROVIDERS, catalogModel, isProvider } from '../domain/modelCatalog.js';
import type { CatalogDeps } from './deps.js';

const parsePlan = validateBody<{ plan: string }>({
  type: 'object',
  required: ['plan'],
  additionalProperties: false,
  properties: { plan: { type: 'string', enum: [...PLANS] } },
});
const parsePolicy = validateBody<{ enabled: boolean }>({
  type: 'object',
  required: ['enabled'],
  additionalProperties: false,
  properties: { enabled: { type: 'boolean' } },
});
const parseProviderKey = validateBody<{ apiKey: string }>({
  type: 'object',
  required: ['apiKey'],
  additionalProperties: false,
  properties: { apiKey: { type: 'string', minLength: 1, maxLength: 4096 } },
});
const parseVisibility = validateBody<{ visible: boolean }>({
  type: 'object',
  required: ['visible'],
  additionalProperties: false,
  properties: { visible: { type: 'boolean' } },
});

function knownModel(id: string): string {
  if (!catalogModel(id)) throw AppError.notFound('Model not found');
  return id;
}

function knownProvider(provider: string): string {
  if (!isProvider(provider)) throw AppError.badRequest(`provider must be one of ${PROVIDERS.join(', ')}`);
  return provider;
}

/**
 * The settings behind the model list, each answering its new state and never a secret:
 * `PUT /users/:userId/plan` `{plan}` → `{plan}`; `PUT /users/:userId/model-policy/:modelId` `{enabled}` →
 * `{policy: {modelId, enabled}}`; `PUT|DELETE /users/:userId/provider-keys/:provider` →
 * `{providerKey: {provider, configured}}`; `PUT /models/:modelId/visibility` `{visible}` → `{visibility: {modelId, visible}}`.
 */
export function modelSettings(router: Router, deps: CatalogDeps): void {
  router.put('/users/:userId/plan', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const { plan } = parsePlan(requestBody(ctx));
    await deps.modelSettings.setPlan(userId, plan);
    ok(ctx, { plan });
  });

  router.put('/users/:userId/model-policy/:modelId', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const modelId = knownModel(pathParam(ctx, 'modelId'));
    const { enabled } = parsePolicy(requestBody(ctx));
    await deps.modelSettings.setModelEnabled(userId, modelId, enabled);
    ok(ctx, { policy: { modelId, enabled } });
  });

  router.put('/users/:userId/provider-keys/:provider', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const provider = knownProvider(pathParam(ctx, 'provider'));
    const { apiKey } = parseProviderKey(requestBody(ctx));
    const updatedAt = await deps.modelSettings.setProviderKey(userId, provider, apiKey);
    ok(ctx, { providerKey: { provider, configured: true, updatedAt: updatedAt.toISOString() } });
  });

  router.delete('/users/:userId/provider-keys/:provider', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const provider = knownProvider(pathParam(ctx, 'provider'));
    const removed = await deps.modelSettings.deleteProviderKey(userId, provider);
    ok(ctx, { providerKey: { provider, configured: false }, removed });
  });

  router.put('/models/:modelId/visibility', async (ctx) => {
    const modelId = knownModel(pathParam(ctx, 'modelId'));
    const { visible } = parseVisibility(requestBody(ctx));
    await deps.modelSettings.setVisibility(modelId, visible);
    ok(ctx, { visibility: { modelId, visible } });
  });
}
