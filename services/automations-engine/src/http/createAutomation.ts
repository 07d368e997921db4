import { randomUUID } from 'node:crypto';
import { ok, pathParam, requestBody, validateBody, type Router } from '@ars/http-app';
import { DEFAULT_AUTOMATION_NAME } from '../domain/automationLimits.js';
import { defaultDraft } from '../domain/defaultDraft.js';
import type { AutomationRecord } from '../store/automations.js';
import { automationAnswer } from './automationAnswer.js';
import { CREATE_AUTOMATION_BODY_SCHEMA, type CreateAutomationBody } from './bodies.js';
import type { AutomationsDeps } from './deps.js';
import { requestGraph, requireOwnInstallation, requirePublishable, writeVersion } from './publishing.js';

const parseCreate = validateBody<CreateAutomationBody>(CREATE_AUTOMATION_BODY_SCHEMA);

/**
 * `POST /internal/users/:userId/automations` → 201 `{automation}`, `active`. Without `graph`, the
 * default draft. Everything is checked before anything is written: the body, the graph's structure,
 * the installation (another user's is 404), and with `publish: true` every publish problem (400,
 * nothing created). A published create writes version 1, then the automation pointing at it.
 */
export function createAutomation(router: Router, deps: AutomationsDeps): void {
  router.post('/users/:userId/automations', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const body = parseCreate(requestBody(ctx));
    const graph = body.graph === undefined ? defaultDraft() : requestGraph(body.graph);
    await requireOwnInstallation(deps, userId, body.installationId);
    if (body.publish === true) await requirePublishable(deps, userId, graph);

    const now = new Date();
    const id = randomUUID();
    const version = body.publish === true ? await writeVersion(deps, id, graph, now) : null;
    const automation: AutomationRecord = {
      id,
      userId,
      installationId: body.installationId,
      name: body.name ?? DEFAULT_AUTOMATION_NAME,
      description: body.description ?? null,
      notes: body.notes ?? null,
      status: 'active',
      draftGraph: graph,
      publishedVersionId: version?.id ?? null,
      publishedVersionNumber: version?.versionNumber ?? null,
      createdAt: now,
      updatedAt: now,
    };
    await deps.automations.insert(automation);
    deps.logger.info({ automation_id: id, published: version !== null }, 'automation created');
    ok(ctx, await automationAnswer(deps, automation), 201);
  });
}
