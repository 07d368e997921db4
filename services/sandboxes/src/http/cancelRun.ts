import type { SandboxCancelAnswer } from '@ars/contract';
import { AppError } from '@ars/errors';
import { ok, validateBody, type Router } from '@ars/http-app';
import type { SessionDeps } from '../sessions/deps.js';
import { cancelRunSession } from '../sessions/cancelRunSession.js';

const parseBody = validateBody<{ userId: string }>({
  type: 'object',
  required: ['userId'],
  properties: { userId: { type: 'string', minLength: 1 } },
  additionalProperties: true,
});

/**
 * `POST /internal/runs/:runId/cancel` `{userId}` → 202 `{runId, state}`, `state` one of
 * `signalled` (a live session was aborted), `not_started` (recorded: the request will start
 * nothing), `finished` (nothing changes). Another user's run: 404 `NOT_FOUND`.
 */
export function cancelRunRoute(router: Router, deps: SessionDeps): void {
  router.post('/runs/:runId/cancel', async (ctx) => {
    const { userId } = parseBody((ctx.request as { body?: unknown }).body);
    const runId = ctx.params.runId;
    if (!runId || runId.length > 200) throw AppError.notFound('Run not found');
    const state = await cancelRunSession(deps, runId, userId);
    const answer: SandboxCancelAnswer = { runId, state };
    ok(ctx, answer, 202);
  });
}
