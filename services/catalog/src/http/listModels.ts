import { AppError } from '@ars/errors';
import { ok, type Router, pathParam } from '@ars/http-app';
import { toContractModel } from '../domain/modelCatalog.js';
import { modelsAvailableTo, type CatalogDeps } from './deps.js';

/**
 * `GET /internal/users/:userId/models` → `{models}`: only the models available to the user
 * (catalog visibility, the user's policy, provider keys, plan-backed managed access), in catalog order.
 * `GET /internal/users/:userId/models/:modelId` → `{model}`, 404 when not available to that user.
 */
export function listModels(router: Router, deps: CatalogDeps): void {
  router.get('/users/:userId/models', async (ctx) => {
    const models = await modelsAvailableTo(deps, pathParam(ctx, 'userId'));
    ok(ctx, { models: models.map(toContractModel) });
  });
  router.get('/users/:userId/models/:modelId', async (ctx) => {
    const modelId = pathParam(ctx, 'modelId');
    const model = (await modelsAvailableTo(deps, pathParam(ctx, 'userId'))).find((m) => m.id === modelId);
    if (!model) throw AppError.notFound('Model not found');
    ok(ctx, { model: toContractModel(model) });
  });
}
