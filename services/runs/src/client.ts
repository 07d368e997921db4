// The runs service's internal API as its callers use it (the gateway, the automations engine): one method per route, typed
// with @ars/contract's shapes. Imports no runs runtime, so a caller pulls in nothing else.
import {
  IDEMPOTENCY_KEY_HEADER,
  INTERNAL_VIEW_HEADER,
  REPLAY_ONLY_HEADER,
  REQUEST_HASH_HEADER,
  type CancelRunAnswer,
  type InternalRun,
  type InternalStartRunBody,
  type StartRunAnswer,
} from '@ars/contract';
import { AppError } from '@ars/errors';
import type { HttpClient } from '@ars/http-client';

/** How a start is identified: the caller's key and the canonical hash of the body (`requestHash` of @ars/idempotency). */
export interface StartRunIdentity {
  idempotencyKey: string;
  requestHash: string;
}

export interface RunsClient {
  /**
   * `POST /internal/users/:userId/runs`: a new run (`replayed: false`), or the run the key already
   * made (`replayed: true`); another body under the key is IDEMPOTENCY_CONFLICT. The body may carry
   * the internal `model` (the gateway's public body cannot).
   */
  startRun(userId: string, body: InternalStartRunBody, identity: StartRunIdentity): Promise<StartRunAnswer>;
  /** The same route with `X-Replay-Only`: the run the key already made, or undefined when it made none (nothing is made). */
  replayRun(userId: string, body: InternalStartRunBody, identity: StartRunIdentity): Promise<StartRunAnswer | undefined>;
  /** `GET /internal/users/:userId/runs/:runId` with `X-Internal-View`: the run with its `model` and `usage`; another user's run is NOT_FOUND. */
  getRun(userId: string, runId: string): Promise<InternalRun>;
  /** `POST /internal/users/:userId/runs/:runId/cancel`: idempotent (`already_terminal` for a finished run); sandboxes unreachable is CONFLICT. */
  cancelRun(userId: string, runId: string): Promise<CancelRunAnswer>;
}

/** `http`'s base URL is the service's root (`RUNS_URL`); every failure is the AppError the client maps. */
export function createRunsClient(http: HttpClient): RunsClient {
  const start = (userId: string, body: InternalStartRunBody, identity: StartRunIdentity, extra: Record<string, string>) =>
    http.post<StartRunAnswer | undefined>(`/internal/users/${encodeURIComponent(userId)}/runs`, body, {
      headers: { [IDEMPOTENCY_KEY_HEADER]: identity.idempotencyKey, [REQUEST_HASH_HEADER]: identity.requestHash, ...extra },
    });
  return {
    async startRun(userId, body, identity) {
      const answer = await start(userId, body, identity, {});
      if (answer === undefined) throw AppError.internal('runs answered a start without a run');
      return answer;
    },
    replayRun: (userId, body, identity) => start(userId, body, identity, { [REPLAY_ONLY_HEADER]: 'true' }),
    async getRun(userId, runId) {
      const answer = await http.get<{ run: InternalRun }>(`/internal/users/${encodeURIComponent(userId)}/runs/${encodeURIComponent(runId)}`, {
        headers: { [INTERNAL_VIEW_HEADER]: 'true' },
      });
      return answer.run;
    },
    cancelRun: (userId, runId) => http.post<CancelRunAnswer>(`/internal/users/${encodeURIComponent(userId)}/runs/${encodeURIComponent(runId)}/cancel`, {}),
  };
}
