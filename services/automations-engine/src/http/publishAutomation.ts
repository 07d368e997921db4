import { ok, pathParam, type Router } from '@ars/http-app';
import { automationAnswer, ownedAutomation, updateOwned } from './automationAnswer.js';
import type { AutomationsDeps } from './deps.js';
import { requirePublishable, writeVersion } from './publishing.js';

/**
 * `POST /internal/users/:userId/automations/:automationId/publish` (no body) → `{automation}`. The
 * draft passes every publish check against the user's agents and models, or 400 BAD_REQUEST whose
 * message lists every problem (`publishRefusalMessage`). Success: a new immutable version (number
 * + 1) that becomes `publishedVersion`.
 */
export function publishAutomation(router: Router, deps: AutomationsDeps): void {
  router.post('/users/:userId/automations/:automationId/publish', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const id = pathParam(ctx, 'automationId');
    const current = await ownedAutomation(deps, userId, id);
    await requirePublishable(deps, userId, current.draftGraph);
    const now = new Date();
    const version = await writeVersion(deps, id, current.draftGraph, now);
    const updated = await updateOwned(deps, userId, id, {}, now, version);
    deps.logger.info({ automation_id: id, version_number: version.versionNumber }, 'automation published');
    ok(ctx, await automationAnswer(deps, updated));
  });
}
