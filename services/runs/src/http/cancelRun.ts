import { AppError } from '@ars/errors';
import { ok, type Router } from '@ars/http-app';
import { isTerminal } from '../domain/runStatus.js';
import { toRun } from '../domain/runView.js';
import type { RunsDeps } from './deps.js';
import { pathParam, runNotFound } from './params.js';

export const SANDBOX_UNREACHABLE = 'the sandbox could not be reached to cancel the run; try again';

/**
 * `POST /internal/users/:userId/runs/:runId/cancel` → `{run, status, alreadyTerminal}` (DESIGN.md,
 * Decisions). A terminal run: `already_terminal`, unchanged, sandboxes not called. Otherwise
 * sandboxes is asked synchronously; any 2xx is `cancellation_requested` (the run becomes `cancelled`
 * when its `runs.finished` says so); sandboxes unreachable or failing is 409 CONFLICT.
 */
export function cancelRun(router: Router, deps: RunsDeps): void {
  router.post('/users/:userId/runs/:runId/cancel', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const run = await deps.runs.findOwned(userId, pathParam(ctx, 'runId'));
    if (!run) throw runNotFound();
    if (isTerminal(run.status)) return ok(ctx, { run: toRun(run), status: 'already_terminal', alreadyTerminal: true });
    try {
      const answer = await deps.sandboxes.cancelRun(run._id, userId);
      deps.logger.info({ run_id: run._id, sandbox_state: answer.state }, 'run cancellation requested');
    } catch (error) {
      deps.logger.warn({ run_id: run._id, err: error }, 'sandboxes could not cancel the run');
      throw AppError.conflict(SANDBOX_UNREACHABLE);
    }
    await deps.runs.markCancelRequested(run._id);
    const current = (await deps.runs.findOwned(userId, run._id)) ?? run;
    if (isTerminal(current.status)) return ok(ctx, { run: toRun(current), status: 'already_terminal', alreadyTerminal: true });
    ok(ctx, { run: toRun(current), status: 'cancellation_requested', alreadyTerminal: false });
  });
}
