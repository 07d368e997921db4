import { ok, type Router } from '@ars/http-app';
import { toRun } from '../domain/runView.js';
import type { RunsDeps } from './deps.js';
import { pathParam, runNotFound } from './params.js';

/** `GET /internal/users/:userId/runs/:runId` → `{run}`; another user's run is 404. */
export function getRun(router: Router, deps: RunsDeps): void {
  router.get('/users/:userId/runs/:runId', async (ctx) => {
    const run = await deps.runs.findOwned(pathParam(ctx, 'userId'), pathParam(ctx, 'runId'));
    if (!run) throw runNotFound();
    ok(ctx, { run: toRun(run) });
  });
}
