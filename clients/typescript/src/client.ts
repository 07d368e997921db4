// ArsClient: one method per public route (CONTRACT.md, Endpoints), grouped by resource; each answers
// the success envelope's `data` as the contract types it.
import { randomUUID } from 'node:crypto';
import { followRun, type FollowItem, type FollowOptions } from './runFollow.js';
import { waitForRun, type WaitOptions } from './runWait.js';
import { Transport, type RetryOptions } from './transport.js';
import type {
  AgentsData,
  AutomationData,
  AutomationEventBody,
  AutomationRunData,
  AutomationRunsData,
  AutomationSummary,
  AutomationsPage,
  CancelRunAnswer,
  CreateAutomationBody,
  CreateSandboxBody,
  DeliveredEventData,
  LoginTokenData,
  McpServersData,
  ModelsData,
  RerunPrReviewData,
  ReposData,
  RevokedApiKeyData,
  RunData,
  RunEventsData,
  SandboxData,
  SandboxesData,
  SandboxLogsData,
  SetNodeModelBody,
  StartRunAnswer,
  StartRunBody,
  TriggerAutomationData,
  TriggerBody,
  UpdateAutomationBody,
  ValidateAutomationData,
  ValidateGraphBody,
} from './types.js';

export interface ArsClientOptions {
  /** `{base_url}`, e.g. `http://127.0.0.1:8080`; the client adds `/api/v1/svc`. */
  baseUrl: string;
  /** A personal access token (`tok_…`), sent as `Authorization: Bearer`. */
  token: string;
  retry?: RetryOptions;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Put before the client's own product token in `User-Agent` (e.g. `ars-cli/0.1.0`). */
  userAgent?: string;
}

export interface IdempotencyOptions {
  /** `Idempotency-Key` (at most 200 characters); generated (a random UUID) when not given. Sent unchanged on every retry. */
  idempotencyKey?: string;
}

const segment = encodeURIComponent;

export class ArsClient {
  readonly repos;
  readonly agents;
  readonly models;
  readonly sandboxes;
  readonly automations;
  readonly prReviews;
  readonly runs;
  readonly mcpServers;
  readonly apiKeys;

  constructor(options: ArsClientOptions) {
    const http = new Transport(options);
    const maxAttempts = Math.max(1, options.retry?.maxAttempts ?? 3);
    const get = <T>(path: string, query?: Record<string, string | number | undefined>, signal?: AbortSignal) =>
      http.request<T>({ method: 'GET', path, ...(query ? { query } : {}), ...(signal ? { signal } : {}) });
    const send = <T>(method: 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown, idempotencyKey?: string) =>
      http.request<T>({ method, path, ...(body === undefined ? {} : { body }), ...(idempotencyKey === undefined ? {} : { idempotencyKey }) });
    const automation = (id: string, rest = '') => `/automations/${segment(id)}${rest}`;
    const run = (runId: string, rest = '') => `/runs/${segment(runId)}${rest}`;
    const events = (runId: string, query: { limit?: number; after?: string } = {}, signal?: AbortSignal) =>
      get<RunEventsData>(run(runId, '/events'), { limit: query.limit, after: query.after }, signal);

    this.repos = {
      /** `GET /repos`: `q` a case-insensitive substring of owner/repo; `limit` 1–200 (100). */
      list: (query: { q?: string; limit?: number } = {}) => get<ReposData>('/repos', { q: query.q, limit: query.limit }),
    };
    this.agents = {
      /** `GET /agents`: owned and preset agents. */
      list: () => get<AgentsData>('/agents'),
    };
    this.models = {
      /** `GET /models`: the enabled, reachable models. */
      list: () => get<ModelsData>('/models'),
    };
    this.sandboxes = {
      /** `GET /sandboxes` (query `repo_id`, `status`, `limit` 1–200). */
      list: (query: { repoId?: string; status?: string; limit?: number } = {}) =>
        get<SandboxesData>('/sandboxes', { repo_id: query.repoId, status: query.status, limit: query.limit }),
      /** `POST /sandboxes`: create or reuse (202). */
      create: (body: CreateSandboxBody) => send<SandboxData>('POST', '/sandboxes', body),
      /** `GET /sandboxes/{sandboxId}/logs`, by the service's record id (`Sandbox.id`). */
      logs: (sandboxId: string) => get<SandboxLogsData>(`/sandboxes/${segment(sandboxId)}/logs`),
    };
    const listAutomations = (query: { limit?: number; cursor?: string } = {}) =>
      get<AutomationsPage>('/automations', { limit: query.limit, cursor: query.cursor });
    this.automations = {
      /** `GET /automations`: one page; pass `nextCursor` as `cursor` for the next. */
      list: listAutomations,
      /** Every automation, page after page (`limit` per page), following `nextCursor`. */
      listAll: (query: { limit?: number } = {}): AsyncIterable<AutomationSummary> => ({
        async *[Symbol.asyncIterator]() {
          let cursor: string | undefined;
          do {
            const page = await listAutomations({ limit: query.limit, cursor });
            yield* page.automations;
            cursor = page.nextCursor ?? undefined;
          } while (cursor !== undefined);
        },
      }),
      /** `POST /automations` (201). */
      create: (body: CreateAutomationBody) => send<AutomationData>('POST', '/automations', body),
      get: (automationId: string) => get<AutomationData>(automation(automationId)),
      /** `PUT /automations/{id}`: omitted fields stay; `graph` replaces the draft whole. */
      update: (automationId: string, body: UpdateAutomationBody) => send<AutomationData>('PUT', automation(automationId), body),
      publish: (automationId: string) => send<AutomationData>('POST', automation(automationId, '/publish')),
      /** `PUT /automations/{id}/model`: an agent node's model override (`modelId: null` clears it). */
      setModel: (automationId: string, body: SetNodeModelBody) => send<AutomationData>('PUT', automation(automationId, '/model'), body),
      /** `POST /automations/{id}/validate` (addition): the publish checks of the draft, or of `body.graph`; changes nothing. */
      validate: (automationId: string, body: ValidateGraphBody = {}) => send<ValidateAutomationData>('POST', automation(automationId, '/validate'), body),
      /** `POST /automations/{id}/trigger` (202) with an `Idempotency-Key`, generated when not given and the same on every retry. */
      trigger: (automationId: string, body: TriggerBody, options: IdempotencyOptions = {}) =>
        send<TriggerAutomationData>('POST', automation(automationId, '/trigger'), body, options.idempotencyKey ?? randomUUID()),
      runs: (automationId: string, query: { limit?: number } = {}) => get<AutomationRunsData>(automation(automationId, '/runs'), { limit: query.limit }),
      run: (automationId: string, runId: string) => get<AutomationRunData>(automation(automationId, `/runs/${segment(runId)}`)),
      /** `POST /automations/{id}/runs/{runId}/cancel` (addition). */
      cancelRun: (automationId: string, runId: string) => send<AutomationRunData>('POST', automation(automationId, `/runs/${segment(runId)}/cancel`)),
      /** `POST /automations/events` (addition): an event for the caller's `await_event` nodes. */
      deliverEvent: (body: AutomationEventBody) => send<DeliveredEventData>('POST', '/automations/events', body),
    };
    this.prReviews = {
      /** `POST /pr-reviews/rerun`: a fresh review of the pull request (no idempotency key: every call queues one). */
      rerun: (body: { repoId: string; prNumber: number }) => send<RerunPrReviewData>('POST', '/pr-reviews/rerun', body),
    };
    this.runs = {
      /** `POST /runs` (202) with an `Idempotency-Key`, generated when not given and the same on every retry; `replayed` for a key seen before. */
      start: (body: StartRunBody, options: IdempotencyOptions = {}) => send<StartRunAnswer>('POST', '/runs', body, options.idempotencyKey ?? randomUUID()),
      get: (runId: string) => get<RunData>(run(runId)),
      /** `GET /runs/{runId}/events`: oldest first, `limit` 1–200 (100), `after` an event id to read the ones after it. */
      events: (runId: string, query: { limit?: number; after?: string } = {}) => events(runId, query),
      /** `POST /runs/{runId}/cancel`: idempotent. */
      cancel: (runId: string) => send<CancelRunAnswer>('POST', run(runId, '/cancel')),
      /** Polls the events until the run is terminal (see WaitOptions); `TIMEOUT` when it is not in time. */
      wait: (runId: string, options: WaitOptions = {}) => waitForRun(runId, (query, signal) => events(runId, query, signal), options),
      /** The live event stream: each event once, in order, and the run's status changes; ends once the run is terminal. */
      follow: (runId: string, options: FollowOptions = {}): AsyncIterable<FollowItem> =>
        followRun(
          runId,
          (headers, signal) => http.send({ method: 'GET', path: run(runId, '/events'), accept: 'text/event-stream', headers, signal }),
          http.baseUrl,
          maxAttempts,
          options,
        ),
    };
    this.mcpServers = {
      /** `GET /mcp/servers`. The configs can hold secrets: never log them. */
      list: () => get<McpServersData>('/mcp/servers'),
    };
    this.apiKeys = {
      /** `DELETE {base_url}/api/settings/api-keys/current`: the client's own token revokes itself (logout). */
      revokeCurrent: () => http.request<RevokedApiKeyData>({ method: 'DELETE', path: '/api/settings/api-keys/current', unversioned: true }),
    };
  }
}

/**
 * The CLI login's last step (no token needed): the one-time code from the browser consent and the
 * PKCE verifier for `POST {base_url}/api/cli/login/token` → the newly minted PAT.
 */
export function exchangeLoginCode(
  params: { baseUrl: string; code: string; codeVerifier: string; redirectUri: string },
  options: Pick<ArsClientOptions, 'fetch' | 'userAgent' | 'retry'> = {},
): Promise<LoginTokenData> {
  const http = new Transport({ ...options, baseUrl: params.baseUrl });
  return http.request<LoginTokenData>({
    method: 'POST',
    path: '/api/cli/login/token',
    unversioned: true,
    body: { code: params.code, code_verifier: params.codeVerifier, redirect_uri: params.redirectUri },
  });
}
