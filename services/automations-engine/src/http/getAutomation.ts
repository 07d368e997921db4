import { ok, pathParam, type Router } from '@ars/http-app';
import { automationAnswer, ownedAutomation } from './automationAnswer.js';
import type { AutomationsDeps } from './deps.js';

/** `GET /internal/users/:userId/automations/:automationId` → `{automation}`; another user's is 404. */
export function getAutomation(router: Router, deps: AutomationsDeps): void {
  router.get('/users/:userId/automations/:automationId', async (ctx) => {
    const automation = await ownedAutomation(deps, pathParam(ctx, 'userId'), pathParam(ctx, 'automationId'));
    ok(ctx, await automationAnswer(deps, automation));
  });
}
