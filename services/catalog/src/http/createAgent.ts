import { AppError } from '@ars/errors';
import { ok, validateBody, type Router, pathParam, requestBody } from '@ars/http-app';
import { SLUG_PATTERN } from '../domain/agents.js';
import { modelsAvailableTo, type CatalogDeps } from './deps.js';
import { isDuplicateKey } from '@ars/mongo';
import { toAgent } from './agentView.js';

interface CreateAgentBody {
  name: string;
  slug?: string | null;
  model: string;
  description?: string | null;
  category?: string | null;
}

const parseCreateAgent = validateBody<CreateAgentBody>({
  type: 'object',
  required: ['name', 'model'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    slug: { type: ['string', 'null'], pattern: SLUG_PATTERN },
    model: { type: 'string', minLength: 1, maxLength: 100 },
    description: { type: ['string', 'null'], maxLength: 2000 },
    category: { type: ['string', 'null'], minLength: 1, maxLength: 64 },
  },
});

/**
 * `POST /internal/users/:userId/agents` `{name, slug?, model, description?, category?}` → 201 `{agent}`.
 * `model` must be a model available to the user (400 naming `model`); a slug the user already
 * uses is 409 `CONFLICT`.
 */
export function createAgent(router: Router, deps: CatalogDeps): void {
  router.post('/users/:userId/agents', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const body = parseCreateAgent(requestBody(ctx));
    const available = await modelsAvailableTo(deps, userId);
    if (!available.some((model) => model.id === body.model))
      throw AppError.badRequest(`model must be a model available to the user (got "${body.model.slice(0, 100)}")`);
    try {
      const agent = await deps.agents.create({
        userId,
        name: body.name,
        slug: body.slug ?? null,
        model: body.model,
        description: body.description ?? null,
        category: body.category ?? null,
      });
      ok(ctx, { agent: toAgent(agent) }, 201);
    } catch (error) {
      if (isDuplicateKey(error)) throw AppError.conflict(`An agent with slug "${body.slug ?? ''}" already exists`);
      throw error;
    }
  });
}
