import { MAX_PROMPT_LENGTH, START_RUN_BODY_SCHEMA, type StartRunAnswer, type StartRunBody } from '@ars/contract';
import { AppError, isAppError } from '@ars/errors';
import { tooManyCharacters, validateBody } from '@ars/http-app';
import { requestHash } from '@ars/idempotency';
import type { StartRunIdentity } from '@ars/runs/client';
import type { PublicRoute } from '../domain/routeTable.js';
import type { Gateway } from '../deps.js';
import { publicError, requireIdempotencyKey } from './forwardToOwner.js';
import { reserveRunStart, type RunStartReservation } from './rateLimits.js';
import type { RouteHandler } from './routeCall.js';

/** CONTRACT.md, POST /runs, Body (branch-name rules are checked by runs; the prompt's length below). */
const parseStartRunBody = validateBody<StartRunBody>(START_RUN_BODY_SCHEMA);

/** The body, its prompt at most MAX_PROMPT_LENGTH characters counted as runs counts them (code points). */
function parseStartRun(raw: unknown): StartRunBody {
  const body = parseStartRunBody(raw);
  const tooLong = tooManyCharacters('prompt', body.prompt, MAX_PROMPT_LENGTH);
  if (tooLong) throw AppError.badRequest(tooLong);
  return body;
}

/**
 * POST /runs: key and body checked, then the user's run-start budget reserved, then runs asked. The
 * reservation is given back when runs answers that no new run was made: a replay (`replayed: true`)
 * or a refusal (4xx). When runs cannot be reached or fails (5xx, deadline) it stands: a run may exist.
 * A full budget refuses only new runs: runs is then asked for the replay of the key, and a key that
 * already made its run gets it (202, `replayed: true`), whenever it was first used.
 */
export function startRun(gateway: Gateway, route: PublicRoute): RouteHandler {
  return async (call) => {
    const { userId } = call.principal;
    const key = requireIdempotencyKey(call.idempotencyKey);
    const body = parseStartRun(call.body);
    const identity: StartRunIdentity = { idempotencyKey: key, requestHash: requestHash(body) };
    const callRuns = async <T>(call: () => Promise<T>): Promise<T> => {
      try {
        return await call();
      } catch (error) {
        throw publicError(route, error);
      }
    };
    let reservation: RunStartReservation;
    try {
      reservation = await reserveRunStart(gateway, userId, key);
    } catch (error) {
      const replay = isAppError(error) && error.code === 'RATE_LIMITED' ? await callRuns(() => gateway.runs.replayRun(userId, body, identity)) : undefined;
      if (replay === undefined) throw error;
      return replay;
    }
    let data: StartRunAnswer;
    try {
      data = await callRuns(() => gateway.runs.startRun(userId, body, identity));
    } catch (error) {
      if (isAppError(error) && error.status < 500) await reservation.refund();
      throw error;
    }
    if (data.replayed) await reservation.refund();
    return data;
  };
}
