import { randomUUID } from 'node:crypto';
import { IDEMPOTENCY_KEY_HEADER } from '@ars/contract';
import { branchNameProblem } from '@ars/git-refs';
import { AppError, isAppError } from '@ars/errors';
import { ok, pathParam, requestBody, validateBody, type Router } from '@ars/http-app';
import { idempotencyKeyProblem, requestHash } from '@ars/idempotency';
import type { JsonValue } from '../domain/expressions.js';
import { compileInputSchema } from '../domain/nodeData.js';
import { describeSchemaErrors } from '../domain/schemaMessages.js';
import { newRunRecords, type AgentCatalog } from '../domain/run/index.js';
import type { AutomationRunRecord } from '../store/automationRuns.js';
import type { AutomationRunDoc } from '../store/collections.js';
import type { ModelPricing } from '../domain/automationRunView.js';
import { ownedAutomation } from './automationAnswer.js';
import { TRIGGER_BODY_SCHEMA, type TriggerBody } from './bodies.js';
import type { AutomationsDeps } from './deps.js';
import { automationRunTrace } from '../engine/runTrace.js';

const parseTrigger = validateBody<TriggerBody>(TRIGGER_BODY_SCHEMA);

/** CONTRACT.md, Trigger result (`TriggerAutomationData`). */
export interface TriggerResult {
  run: {
    automationId: string;
    jobRunId: string | null;
    /** `started` for the trigger that made the run, `replayed` for the same key and body again. */
    outcome: 'started' | 'replayed';
    reason: string | null;
    started: boolean;
    /** The automation run's status now. */
    status: string;
    runtime: { provider: string | null; runId: string | null };
  };
}

function triggerResult(run: AutomationRunRecord, outcome: TriggerResult['run']['outcome']): TriggerResult {
  const held = run.held && run.records.run.status === 'pending';
  return {
    run: {
      automationId: run.automationId,
      jobRunId: run.id,
      outcome,
      reason: held ? 'held until released' : null,
      started: !held,
      status: run.records.run.status,
      runtime: { provider: 'automations-engine', runId: run.id },
    },
  };
}

/** The run a key already made: its result when the request is the same, IDEMPOTENCY_CONFLICT when it is not. */
function replayOf(run: AutomationRunRecord, hash: string): TriggerResult {
  if (run.trigger.requestHash !== hash) throw AppError.idempotencyConflict();
  return triggerResult(run, 'replayed');
}

function requireIdempotencyKey(value: string | undefined): string {
  const problem = idempotencyKeyProblem(value || undefined);
  if (problem) throw AppError.badRequest(problem);
  return value as string;
}

/** The start node's `inputSchema` (none: any JSON object). */
function requireValidInput(graph: { nodes: { type: string; data: Record<string, unknown> }[] }, input: Record<string, JsonValue>): void {
  const start = graph.nodes.find((node) => node.type === 'start');
  const schema = start?.data.inputSchema as Record<string, unknown> | undefined;
  if (!schema) return;
  const compiled = compileInputSchema(schema);
  if (!compiled.ok) throw AppError.internal(`the published start node's input schema does not compile: ${compiled.message}`);
  if (!compiled.validate(input)) throw AppError.badRequest(describeSchemaErrors(compiled.validate.errors, 'input').join('; '));
}

/** What agent nodes read, as it is now: each agent's model, each model's provider and price. Pinned to the run. */
async function catalogSnapshot(deps: AutomationsDeps, userId: string): Promise<AgentCatalog & { pricing: Record<string, ModelPricing> }> {
  const [agents, models] = await Promise.all([deps.catalog.listAgents(userId), deps.catalog.listModels(userId)]);
  return {
    agents: Object.fromEntries(agents.map((agent) => [agent.id, { modelId: agent.model || null }])),
    models: Object.fromEntries(models.map((model) => [model.id, { provider: model.provider }])),
    pricing: Object.fromEntries(models.map((model) => [model.id, { input: model.pricing.input, output: model.pricing.output }])),
  };
}

/**
 * `POST /internal/users/:userId/automations/:automationId/trigger` (`Idempotency-Key`) → 202 Trigger
 * result. The key is the user's: the same key with the same automation and body answers the run it
 * made (`replayed`), with anything else 409 IDEMPOTENCY_CONFLICT; racing triggers with one key make
 * one run (a unique index). Checked before the run exists: the automation (404), active and
 * published (409), the repository the user's (404) and of the automation's installation (400), the
 * input against the start node's `inputSchema` (400 naming the path). The run is created pinned to
 * the published version and triggered before the answer, so `jobRunId` is set; its agent runs
 * start after.
 */
export function triggerAutomation(router: Router, deps: AutomationsDeps): void {
  router.post('/users/:userId/automations/:automationId/trigger', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const automationId = pathParam(ctx, 'automationId');
    const idempotencyKey = requireIdempotencyKey(ctx.get(IDEMPOTENCY_KEY_HEADER));
    const body = parseTrigger(requestBody(ctx));
    const input = body.input ?? {};
    const baseBranch = body.baseBranch ?? null;
    const branchProblem = baseBranch === null ? null : branchNameProblem(baseBranch);
    if (branchProblem) throw AppError.badRequest(`baseBranch ${branchProblem}`);
    // baseBranch only when given: a key used before it existed still replays the same request.
    const hold = body.hold === true;
    const hash = requestHash({ automationId, repoId: body.repoId, input, ...(baseBranch === null ? {} : { baseBranch }), ...(hold ? { hold } : {}) });

    const existing = await deps.runs.findByTriggerKey(userId, idempotencyKey);
    if (existing) return ok(ctx, replayOf(existing, hash), 202);

    const automation = await ownedAutomation(deps, userId, automationId);
    if (automation.status !== 'active') throw AppError.conflict('the automation is inactive; set its status to active to trigger it');
    const version = automation.publishedVersionId ? await deps.versions.find(automation.publishedVersionId) : null;
    if (!version) throw AppError.conflict('the automation has no published version; publish it first');
    const repo = await deps.catalog.repo(userId, body.repoId).catch((error: unknown) => {
      if (isAppError(error) && error.code === 'NOT_FOUND') throw AppError.notFound('Repository not found');
      throw error;
    });
    if (repo.installation_id !== automation.installationId) {
      throw AppError.badRequest(`repoId "${body.repoId}" is not a repository of the automation's installation (${automation.installationId})`);
    }
    requireValidInput(version.graph, input);

    const now = new Date();
    const id = randomUUID();
    const records = newRunRecords({ id, repoId: body.repoId, input });
    const trace = automationRunTrace({ automationId, automationRunId: id, versionNumber: version.versionNumber });
    const doc: AutomationRunDoc = {
      _id: id,
      automationId,
      userId,
      installationId: automation.installationId,
      versionId: version.id,
      versionNumber: version.versionNumber,
      repoId: body.repoId,
      baseBranch,
      status: 'pending',
      recordsJson: JSON.stringify(records),
      revision: 0,
      catalog: await catalogSnapshot(deps, userId),
      trigger: { idempotencyKey, requestHash: hash },
      agentRunIds: [],
      aiCalls: [],
      dispatch: [],
      dispatchCount: 0,
      ...(trace ? { trace } : {}),
      createdAt: now,
      updatedAt: now,
      finishedAt: null,
      // A crash before `triggered` is written leaves it pending: the sweeper triggers it. A held run
      // is left alone until its release.
      checkAt: hold ? null : now,
      held: hold,
    };
    if (!(await deps.runs.insert(doc, []))) {
      const winner = await deps.runs.findByTriggerKey(userId, idempotencyKey);
      if (!winner) throw AppError.internal('a trigger with this key was made and is gone');
      return ok(ctx, replayOf(winner, hash), 202);
    }
    deps.logger.info({ automation_id: automationId, automation_run_id: id, version_number: version.versionNumber, held: hold }, 'automation triggered');
    const run = hold ? await deps.runs.find(id) : await deps.driver.applyThenPerformLater(id, { type: 'triggered', at: now.toISOString() });
    if (!run) throw AppError.internal('the automation run disappeared');
    ok(ctx, triggerResult(run, 'started'), 202);
  });
}
