import { AppError } from '@ars/errors';
import { clampLimit, ok, type Router } from '@ars/http-app';
import { seqOfRunEventId, toRun, toRunEvent } from '../domain/runView.js';
import type { RunEventDoc } from '../store/collections.js';
import type { RunsDeps } from './deps.js';
import { pathParam, runNotFound } from './params.js';

/** CONTRACT.md, Limits: run events `limit` 1 to 200, default 100; outside values are clamped. */
export const EVENTS_LIMIT = { min: 1, max: 200, default: 100 } as const;

/**
 * `after` names an event of this run; anything else is a 400 saying so (never an empty page that
 * looks like the end). An id of the run's own form gives its seq without a read; the event is looked
 * up only when nothing follows it (a stream caught up, or an id past the run's last event): events
 * are stored in seq order, so one that has events after it exists.
 */
async function eventsAfter(deps: RunsDeps, runId: string, after: unknown, limit: number): Promise<RunEventDoc[]> {
  if (after === undefined) return deps.events.list(runId, limit, undefined);
  if (typeof after !== 'string' || after.length === 0 || after.length > 300) throw AppError.badRequest('after must be the id of an event of this run');
  const named = seqOfRunEventId(runId, after);
  if (named !== undefined) {
    const events = await deps.events.list(runId, limit, named);
    if (events.length > 0 || (await deps.events.seqOf(runId, after)) !== undefined) return events;
  } else {
    const seq = await deps.events.seqOf(runId, after);
    if (seq !== undefined) return deps.events.list(runId, limit, seq);
  }
  throw AppError.badRequest(`after: ${JSON.stringify(after.slice(0, 100))} is not an event of this run`);
}

/**
 * `GET /internal/users/:userId/runs/:runId/events?limit=&after=` → `{run, events}`: the sanitized
 * events oldest first (by seq), at most `limit`, with the current run; with `after=<eventId>` the
 * events after that one, so a client pages through any number of them. Another user's run is 404.
 */
export function listRunEvents(router: Router, deps: RunsDeps): void {
  router.get('/users/:userId/runs/:runId/events', async (ctx) => {
    const limit = clampLimit(ctx.query.limit, EVENTS_LIMIT);
    const run = await deps.runs.findOwned(pathParam(ctx, 'userId'), pathParam(ctx, 'runId'));
    if (!run) throw runNotFound();
    const events = await eventsAfter(deps, run._id, ctx.query.after, limit);
    ok(ctx, { run: toRun(run), events: events.map(toRunEvent) });
  });
}
