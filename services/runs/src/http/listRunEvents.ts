import { clampLimit, ok, type Router } from '@ars/http-app';
import { toRun, toRunEvent } from '../domain/runView.js';
import type { RunsDeps } from './deps.js';
import { pathParam, runNotFound } from './params.js';

/** CONTRACT.md, Limits: run events `limit` 1 to 200, default 100; outside values are clamped. */
export const EVENTS_LIMIT = { min: 1, max: 200, default: 100 } as const;

/**
 * `GET /internal/users/:userId/runs/:runId/events?limit=` → `{run, events}`: the sanitized events
 * oldest first (by seq), at most `limit`, with the current run. Another user's run is 404.
 */
export function listRunEvents(router: Router, deps: RunsDeps): void {
  router.get('/users/:userId/runs/:runId/events', async (ctx) => {
    const limit = clampLimit(ctx.query.limit, EVENTS_LIMIT);
    const run = await deps.runs.findOwned(pathParam(ctx, 'userId'), pathParam(ctx, 'runId'));
    if (!run) throw runNotFound();
    const events = await deps.events.list(run._id, limit);
    ok(ctx, { run: toRun(run), events: events.map(toRunEvent) });
  });
}
