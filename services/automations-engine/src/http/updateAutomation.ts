import { ok, pathParam, requestBody, validateBody, type Router } from '@ars/http-app';
import type { AutomationChange } from '../store/automations.js';
import { automationAnswer, ownedAutomation, updateOwned } from './automationAnswer.js';
import { UPDATE_AUTOMATION_BODY_SCHEMA, type UpdateAutomationBody } from './bodies.js';
import type { AutomationsDeps } from './deps.js';
import { requestGraph, requireOwnInstallation } from './publishing.js';

const parseUpdate = validateBody<UpdateAutomationBody>(UPDATE_AUTOMATION_BODY_SCHEMA);

/**
 * `PUT /internal/users/:userId/automations/:automationId` → `{automation}`. Omitted fields stay;
 * `graph` replaces the draft whole after `parseFlowGraph` passes (400 naming each path, draft
 * unchanged); a changed `installationId` must be the user's (404); `status` active/inactive. One
 * document write, after every check.
 */
export function updateAutomation(router: Router, deps: AutomationsDeps): void {
  router.put('/users/:userId/automations/:automationId', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const id = pathParam(ctx, 'automationId');
    const body = parseUpdate(requestBody(ctx));
    const graph = body.graph === undefined ? undefined : requestGraph(body.graph);
    const current = await ownedAutomation(deps, userId, id);
    if (body.installationId !== undefined && body.installationId !== current.installationId) {
      await requireOwnInstallation(deps, userId, body.installationId);
    }
    const change: AutomationChange = {
      ...(body.installationId === undefined ? {} : { installationId: body.installationId }),
      ...(body.name === undefined ? {} : { name: body.name }),
      ...(body.description === undefined ? {} : { description: body.description }),
      ...(body.notes === undefined ? {} : { notes: body.notes }),
      ...(body.status === undefined ? {} : { status: body.status }),
      ...(graph === undefined ? {} : { draftGraph: graph }),
    };
    const updated = await updateOwned(deps, userId, id, change, new Date());
    ok(ctx, await automationAnswer(deps, updated));
  });
}
