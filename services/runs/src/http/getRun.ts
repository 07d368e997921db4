import { INTERNAL_VIEW_HEADER } from '@ars/contract';
import { ok, type Router } from '@ars/http-app';
import { AGENT_MESSAGE_EVENT, toInternalRun, toRun } from '../domain/runView.js';
import type { RunsDeps } from './deps.js';
import { pathParam, runNotFound } from './params.js';

/**
 * `GET /internal/users/:userId/runs/:runId` → `{run}`; another user's run is 404. With
 * `X-Internal-View: true` the run is the internal view (`InternalRun`: `model`, `usage` and `lastMessage` too); the
 * gateway forwards no caller header, so the public answer is always the contract's Run.
 */
export function getRun(router: Router, deps: RunsDeps): void {
  router.get('/users/:userId/runs/:runId', async (ctx) => {
    const run = await deps.runs.findOwned(pathParam(ctx, 'userId'), pathParam(ctx, 'runId'));
    if (!run) throw runNotFound();
    if (ctx.get(INTERNAL_VIEW_HEADER) !== 'true') return ok(ctx, { run: toRun(run) });
    ok(ctx, { run: toInternalRun(run, await deps.events.lastMessage(run._id, AGENT_MESSAGE_EVENT)) });
  });
}
