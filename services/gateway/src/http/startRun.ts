import { AppError, isAppError } from '@ars/errors';
import { ok, tooManyCharacters, validateBody, type RouterMiddleware } from '@ars/http-app';
import { requestHash } from '@ars/idempotency';
import { MAX_PROMPT_LENGTH } from '../domain/limits.js';
import type { PublicRoute } from '../domain/routeTable.js';
import type { Gateway } from './deps.js';
import { requestBody } from './requestBody.js';
import { principalOf } from './authenticateToken.js';
import { internalPath, publicError, requireIdempotencyKey } from './forwardToOwner.js';
import { reserveRunStart, type RunStartReservation } from './rateLimits.js';

const nullableString = { type: ['string', 'null'] };

/** CONTRACT.md, POST /runs, Body (branch-name rules are checked by runs; the prompt's length below). */
const parseStartRunBody = validateBody<Record<string, unknown> & { prompt: string }>({
  type: 'object',
  required: ['repoId', 'prompt'],
  properties: {
    repoId: { type: 'string', minLength: 1 },
    prompt: { type: 'string', minLength: 1 },
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

/** The body, its prompt at most MAX_PROMPT_LENGTH characters counted as runs counts them (code points). */
function parseStartRun(raw: unknown): Record<string, unknown> {
  const body = parseStartRunBody(raw);
  const tooLong = tooManyCharacters('prompt', body.prompt, MAX_PROMPT_LENGTH);
  if (tooLong) throw AppError.badRequest(tooLong);
  return body;
}

/** The header carrying the canonical body hash (RFC 8785, SHA-256) to runs (DESIGN.md, Flow of a run, step 1). */
export const REQUEST_HASH_HEADER = 'X-Request-Hash';
/** Asks runs for the replay of a key only: 204 when the key made no run (services/runs README). */
export const REPLAY_ONLY_HEADER = 'X-Replay-Only';

/**
 * POST /runs: key and body checked, then the user's run-start budget reserved, then runs asked. The
 * reservation is given back when runs answers that no new run was made: a replay (`replayed: true`)
 * or a refusal (4xx). When runs cannot be reached or fails (5xx, deadline) it stands: a run may exist.
 * A full budget refuses only new runs: runs is then asked for the replay of the key, and a key that
 * already made its run gets it (202, `replayed: true`), whenever it was first used.
 */
export function startRun(gateway: Gateway, route: PublicRoute): RouterMiddleware {
  return async (ctx) => {
    const { userId } = principalOf(ctx.state);
    const key = requireIdempotencyKey(ctx);
    const body = parseStartRun(requestBody(ctx));
    const headers = { 'Idempotency-Key': key, [REQUEST_HASH_HEADER]: requestHash(body) };
    const callRuns = async (extra: Record<string, string> = {}): Promise<Record<string, unknown> | undefined> => {
      try {
        return await gateway.peers.runs.post<Record<string, unknown> | undefined>(internalPath(route, userId, {}), body, { headers: { ...headers, ...extra } });
      } catch (error) {
        throw publicError(route, error);
      }
    };
    let reservation: RunStartReservation;
    try {
      reservation = await reserveRunStart(gateway, userId, key);
    } catch (error) {
      const replay = isAppError(error) && error.code === 'RATE_LIMITED' ? await callRuns({ [REPLAY_ONLY_HEADER]: 'true' }) : undefined;
      if (replay === undefined) throw error;
      return ok(ctx, replay, 202);
    }
    let data: Record<string, unknown> | undefined;
    try {
      data = await callRuns();
    } catch (error) {
      if (isAppError(error) && error.status < 500) await reservation.refund();
      throw error;
    }
    if (data?.replayed === true) await reservation.refund();
    ok(ctx, data, 202);
  };
}
