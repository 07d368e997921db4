import { ok, pathParam, requestBody, validateBody, type Router } from '@ars/http-app';
import { ownedAutomation } from './automationAnswer.js';
import { VALIDATE_GRAPH_BODY_SCHEMA, type ValidateGraphBody } from './bodies.js';
import type { AutomationsDeps } from './deps.js';
import { graphProblems, requestGraph } from './publishing.js';

const parseValidate = validateBody<ValidateGraphBody>(VALIDATE_GRAPH_BODY_SCHEMA);

/**
 * `POST /internal/users/:userId/automations/:automationId/validate` (an addition) → 200
 * `{valid, problems}`: the publish checks of the draft (no body, or no `graph`) or of the body's
 * `graph` (a structurally malformed one is 400 as on PUT). Changes nothing.
 */
export function validateAutomation(router: Router, deps: AutomationsDeps): void {
  router.post('/users/:userId/automations/:automationId/validate', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const body = parseValidate(requestBody(ctx));
    const given = body.graph === undefined ? undefined : requestGraph(body.graph);
    const automation = await ownedAutomation(deps, userId, pathParam(ctx, 'automationId'));
    const problems = await graphProblems(deps, userId, given ?? automation.draftGraph);
    ok(ctx, { valid: problems.length === 0, problems });
  });
}
