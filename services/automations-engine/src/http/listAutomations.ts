import { AppError } from '@ars/errors';
import { clampLimit, ok, parseQuery, pathParam, type Router } from '@ars/http-app';
import { toAutomationSummary } from '../domain/automationView.js';
import { decodeCursor, encodeCursor } from '../domain/listCursor.js';

import type { AutomationsDeps } from './deps.js';

/** CONTRACT.md, Limits: the automations list. */
export const AUTOMATIONS_LIMIT = { min: 1, max: 100, default: 50 } as const;

// `limit` is left to clampLimit (one rule everywhere: any integer clamped, however large).
const parseListQuery = parseQuery<{ cursor?: string; limit?: unknown }>({
  type: 'object',
  properties: { cursor: { type: 'string' }, limit: {} },
});

/**
 * `GET /internal/users/:userId/automations?limit=&cursor=` → `{automations, nextCursor}`: the
 * user's summaries (never a graph), newest first; `limit` 1–100, default 50, clamped; `nextCursor`
 * null on the last page; a cursor this service did not make is 400.
 */
export function listAutomations(router: Router, deps: AutomationsDeps): void {
  router.get('/users/:userId/automations', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const query = parseListQuery(ctx.query);
    const limit = clampLimit(query.limit, AUTOMATIONS_LIMIT);
    const after = query.cursor === undefined ? undefined : (decodeCursor(query.cursor) ?? undefined);
    if (query.cursor !== undefined && !after) throw AppError.badRequest('cursor is invalid (send a nextCursor unchanged)');
    const page = await deps.automations.listOwned(userId, { limit: limit + 1, after });
    const shown = page.slice(0, limit);
    const last = shown[shown.length - 1];
    const nextCursor = page.length > limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null;
    ok(ctx, { automations: shown.map(toAutomationSummary), nextCursor });
  });
}
