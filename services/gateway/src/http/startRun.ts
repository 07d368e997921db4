import { isAppError } from '@ars/errors';
import { ok, validateBody, type RouterMiddleware } from '@ars/http-app';
import { requestHash } from '@ars/idempotency';
import type { PublicRoute } from '../domain/routeTable.js';
import type { Gateway } from '../gateway.js';
import { requestBody } from './requestBody.js';
import { principalOf } from './authenticateToken.js';
import { internalPath, publicError, requireIdempotencyKey } from './forwardToOwner.js';
import { reserveRunStart } from './rateLimits.js';

const nullableString = { type: ['string', 'null'] };

/** CONTRACT.md, POST /runs, Body (branch-name rules are checked by runs). */
const parseStartRun = validateBody<Record<string, unknown>>({
  type: 'object',
  required: ['repoId', 'prompt'],
  properties: {
    repoId: { type: 'string', minLength: 1 },
    prompt: { type: 'string', minLength: 1, maxLength: 100_000 },
    harness: { enum: ['codex', 'claude-code'] },
    baseBranch: { type: 'string' },
    workingBranch: { type: 'string' },
    createBranch: { type: 'boolean' },
    rootDirectory: nullableString,
    conversationId: nullableString,
    workspaceSessionId: nullableString,
    mode: nullableString,
  },
});

/** The header carrying the canonical body hash (RFC 8785, SHA-256) to runs (DESIGN.md, Flow of a run, step 1). */
export const REQUEST_HASH_HEADER = 'X-Request-Hash';

/**
 * POST /runs: key and body checked, then the user's run-start budget reserved, then runs asked. The
 * reservation is given back when runs answers that no new run was made: a replay (`replayed: true`)
 * or a refusal (4xx). When runs cannot be reached or fails (5xx, deadline) it stands: a run may exist.
 */
export function startRun(gateway: Gateway, route: PublicRoute): RouterMiddleware {
  return async (ctx) => {
    const { userId } = principalOf(ctx.state);
    const key = requireIdempotencyKey(ctx);
    const body = parseStartRun(requestBody(ctx));
    const reservation = await reserveRunStart(gateway, userId, key);
    let data: Record<string, unknown>;
    try {
      data = await gateway.peers.runs.post<Record<string, unknown>>(internalPath(route, userId, {}), body, {
        headers: { 'Idempotency-Key': key, [REQUEST_HASH_HEADER]: requestHash(body) },
      });
    } catch (error) {
      if (isAppError(error) && error.status < 500) await reservation.refund();
      throw publicError(route, error);
    }
    if (data.replayed === true) await reservation.refund();
    ok(ctx, data, 202);
  };
}
