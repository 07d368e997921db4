import { REVIEW_FINDINGS_BODY_SCHEMA, type ReviewFinding } from '@ars/contract';
import { AppError } from '@ars/errors';
import { clampLimit, ok, parseQuery, pathParam, requestBody, validateBody, type Router } from '@ars/http-app';
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

/**
 * `GET /internal/users/:userId/automations/:automationId/runs/:runId` → `{run}`: the detail. Another
 * user's automation is 404 like any route; a run id this automation does not have is `{run: null}`
 * (CONTRACT.md: `{run: AutomationRunDetail or null}`).
 */
export function getAutomationRun(router: Router, deps: AutomationsDeps): void {
  router.get('/users/:userId/automations/:automationId/runs/:runId', async (ctx) => {
    const automationId = pathParam(ctx, 'automationId');
    await ownedAutomation(deps, pathParam(ctx, 'userId'), automationId);
    const run = await deps.runs.findOfAutomation(automationId, pathParam(ctx, 'runId'));
    ok(ctx, run ? await runDetailAnswer(deps, run) : { run: null });
  });
}

const parseReviewFindings = validateBody<{ findings: ReviewFinding[] }>(REVIEW_FINDINGS_BODY_SCHEMA);

/**
 * `PUT /internal/users/:userId/automations/:automationId/runs/:runId/review-findings` → `{run}`:
 * the findings pr-review classified for the review this run made replace the run's (at most
 * MAX_REVIEW_FINDINGS; texts sanitized when shown). Internal only: the gateway has no public route to it.
 */
export function setReviewFindings(router: Router, deps: AutomationsDeps): void {
  router.put('/users/:userId/automations/:automationId/runs/:runId/review-findings', async (ctx) => {
    const run = await ownedAutomationRun(deps, pathParam(ctx, 'userId'), pathParam(ctx, 'automationId'), pathParam(ctx, 'runId'));
    const { findings } = parseReviewFindings(requestBody(ctx));
    if (!(await deps.runs.setReviewFindings(run.id, findings))) throw automationRunNotFound();
    ok(ctx, await runDetailAnswer(deps, { ...run, reviewFindings: findings }));
  });
}

/**
 * `POST /internal/users/:userId/automations/:automationId/runs/:runId/release` → `{run}`: a run a
 * trigger with `hold` created starts now. Idempotent: a run not held (released already, cancelled,
 * never held) is answered as it is. Internal only.
 */
export function releaseAutomationRun(router: Router, deps: AutomationsDeps): void {
  router.post('/users/:userId/automations/:automationId/runs/:runId/release', async (ctx) => {
    const run = await ownedAutomationRun(deps, pathParam(ctx, 'userId'), pathParam(ctx, 'automationId'), pathParam(ctx, 'runId'));
    const now = new Date();
    if (!(await deps.runs.release(run.id, now))) return ok(ctx, await runDetailAnswer(deps, run));
    deps.logger.info({ automation_id: run.automationId, automation_run_id: run.id }, 'automation run released');
    const after = (await deps.driver.applyThenPerformLater(run.id, { type: 'triggered', at: now.toISOString() })) ?? run;
    ok(ctx, await runDetailAnswer(deps, after));
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
