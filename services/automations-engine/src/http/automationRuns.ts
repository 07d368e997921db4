import { AppError } from '@ars/errors';
import { clampLimit, ok, parseQuery, pathParam, type Router } from '@ars/http-app';
import { toAutomationRunDetail, toAutomationRunSummary } from '../domain/automationRunView.js';
import type { AutomationRunRecord } from '../store/automationRuns.js';
import { ownedAutomation } from './automationAnswer.js';
import type { AutomationsDeps } from './deps.js';

/** CONTRACT.md, Limits: the automation runs list. */
export const AUTOMATION_RUNS_LIMIT = { min: 1, max: 50, default: 20 } as const;

const parseListQuery = parseQuery<{ limit?: unknown }>({ type: 'object', properties: { limit: {} } });

export function automationRunNotFound(): AppError {
  return AppError.notFound('Automation run not found');
}

/** The automation's run (the automation the user's: else 404 like a run that does not exist). */
export async function ownedAutomationRun(deps: AutomationsDeps, userId: string, automationId: string, runId: string): Promise<AutomationRunRecord> {
  await ownedAutomation(deps, userId, automationId);
  const run = await deps.runs.findOfAutomation(automationId, runId);
  if (!run) throw automationRunNotFound();
  return run;
}

export async function runDetailAnswer(deps: AutomationsDeps, run: AutomationRunRecord) {
  return { run: toAutomationRunDetail(run, await deps.programs.nodeTypes(run.versionId)) };
}

/**
 * `GET /internal/users/:userId/automations/:automationId/runs?limit=` → `{runs}`: the automation's
 * runs, newest first, as summaries (README, "Automation run records"); `limit` 1–50, default 20, clamped.
 */
export function listAutomationRuns(router: Router, deps: AutomationsDeps): void {
  router.get('/users/:userId/automations/:automationId/runs', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const automationId = pathParam(ctx, 'automationId');
    const limit = clampLimit(parseListQuery(ctx.query).limit, AUTOMATION_RUNS_LIMIT);
    await ownedAutomation(deps, userId, automationId);
    const runs = await deps.runs.listOfAutomation(automationId, limit);
    const summaries = await Promise.all(runs.map(async (run) => toAutomationRunSummary(run, await deps.programs.nodeTypes(run.versionId))));
    ok(ctx, { runs: summaries });
  });
}

/** `GET /internal/users/:userId/automations/:automationId/runs/:runId` → `{run}`: the detail; another automation's or user's run is 404. */
export function getAutomationRun(router: Router, deps: AutomationsDeps): void {
  router.get('/users/:userId/automations/:automationId/runs/:runId', async (ctx) => {
    const run = await ownedAutomationRun(deps, pathParam(ctx, 'userId'), pathParam(ctx, 'automationId'), pathParam(ctx, 'runId'));
    ok(ctx, await runDetailAnswer(deps, run));
  });
}

/**
 * `POST /internal/users/:userId/automations/:automationId/runs/:runId/cancel` (addition) → `{run}`:
 * the run ends `cancelled`, its live agent runs cancelled, its timers and waits cleared. Idempotent:
 * a finished run is answered as it is.
 */
export function cancelAutomationRun(router: Router, deps: AutomationsDeps): void {
  router.post('/users/:userId/automations/:automationId/runs/:runId/cancel', async (ctx) => {
    const run = await ownedAutomationRun(deps, pathParam(ctx, 'userId'), pathParam(ctx, 'automationId'), pathParam(ctx, 'runId'));
    const after = (await deps.driver.apply(run.id, { type: 'cancelRequested', at: new Date().toISOString() })) ?? run;
    ok(ctx, await runDetailAnswer(deps, after));
  });
}
