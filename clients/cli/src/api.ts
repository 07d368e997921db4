// THE ONE SEAM between `ars` and `@ars/client` (issue 18's shared spec). Every call of the service
// the CLI makes goes through this file: the commands see only `ArsApi`, `createApi`, `ArsApiError`
// and `exchangeLoginCode`.
//
// REPLACED AT MERGE: when `@ars/client` is on the branch, this whole file becomes
//
//   export { ArsApiError, exchangeLoginCode } from '@ars/client';
//   export type { Repo, Run, RunEvent, Sandbox, AutomationSummary, McpServerItem } from '@ars/client';
//   import { ArsClient, type ArsClientOptions } from '@ars/client';
//   export type ArsApi = Pick<ArsClient, 'repos' | 'sandboxes' | 'automations' | 'prReviews' | 'runs' | 'mcpServers' | 'apiKeys'>;
//   export function createApi(options: ArsClientOptions): ArsApi { return new ArsClient(options); }
//
// and `@ars/client` replaces `@ars/contract` in package.json (and tsconfig.json's references). The
// fallback below (FetchFallbackClient) is only the handful of calls the CLI makes, on `fetch`,
// without the client's retries of 429/503 or the stream's resumption: it goes at merge.
import { randomUUID } from 'node:crypto';
import type { Repo, Run, RunEvent, Sandbox } from '@ars/contract';

export type { Repo, Run, RunEvent, Sandbox };

/** CONTRACT.md, Automation summary. */
export interface AutomationSummary {
  id: string;
  installationId: number;
  name: string;
  description: string | null;
  status: 'active' | 'inactive';
  publishedVersionId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** CONTRACT.md, External tool server (its `config` is secret). */
export interface McpServerItem {
  name: string;
  enabled: boolean;
  config: Record<string, unknown>;
}

export interface ArsClientOptions {
  /** `{base_url}`: the client adds `/api/v1/svc`. */
  baseUrl: string;
  token?: string;
  userAgent?: string;
}

/** The spec's `@ars/client` methods the CLI calls, with the shapes the spec gives them. */
export interface ArsApi {
  repos: { list(query?: { q?: string; limit?: number }): Promise<{ repos: Repo[] }> };
  sandboxes: { list(query?: { repoId?: string; status?: string; limit?: number }): Promise<{ sandboxes: Sandbox[] }> };
  automations: {
    list(query?: { limit?: number; cursor?: string }): Promise<{ automations: AutomationSummary[]; nextCursor: string | null }>;
    get(id: string): Promise<{ automation: Record<string, unknown> }>;
    trigger(
      id: string,
      body: { repoId: string; input?: Record<string, unknown> },
      options?: { idempotencyKey?: string },
    ): Promise<{ run: Record<string, unknown> }>;
    runs(id: string, query?: { limit?: number }): Promise<{ runs: Record<string, unknown>[] }>;
  };
  prReviews: { rerun(body: { repoId: string; prNumber: number }): Promise<Record<string, unknown>> };
  runs: {
    start(body: Record<string, unknown>, options?: { idempotencyKey?: string }): Promise<Run & { replayed: boolean }>;
    get(runId: string): Promise<{ run: Run }>;
    events(runId: string, query?: { limit?: number; after?: string }): Promise<{ run: Run; events: RunEvent[] }>;
    cancel(runId: string): Promise<{ run: Run; status: string; alreadyTerminal?: boolean }>;
    follow(
      runId: string,
      options?: { lastEventId?: string; signal?: AbortSignal },
    ): AsyncIterable<{ type: 'event'; event: RunEvent } | { type: 'run'; run: Run }>;
  };
  mcpServers: { list(): Promise<{ servers: McpServerItem[] }> };
  apiKeys: { revokeCurrent(): Promise<{ revoked: true; id: string }> };
}

/** The spec's one error class: the envelope's code, the HTTP status (0: never reached), the request id. */
export class ArsApiError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly requestId: string | null = null,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'ArsApiError';
  }
}

export interface LoginToken {
  token: string;
  id: string;
  prefix: string;
  scopes: string[];
  expiresAt: string;
}

export function createApi(options: ArsClientOptions): ArsApi {
  return new FetchFallbackClient(options);
}

/** `POST {base_url}/api/cli/login/token`: the one-time code and its verifier for a new PAT (no token needed). */
export async function exchangeLoginCode(input: { baseUrl: string; code: string; codeVerifier: string; redirectUri: string }): Promise<LoginToken> {
  const transport = new FetchTransport(input.baseUrl, undefined, undefined);
  return transport.json<LoginToken>('POST', '/api/cli/login/token', {
    body: { code: input.code, code_verifier: input.codeVerifier, redirect_uri: input.redirectUri },
  });
}

// ---------------------------------------------------------------------------------------------
// Fallback on fetch, REPLACED AT MERGE by @ars/client (see the top of this file).
// ---------------------------------------------------------------------------------------------

type Query = Record<string, string | number | undefined>;

class FetchTransport {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string | undefined,
    private readonly userAgent: string | undefined,
  ) {}

  async send(
    method: string,
    path: string,
    options: { query?: Query; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<Response> {
    const url = new URL(`${this.baseUrl.replace(/\/+$/, '')}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (this.userAgent) headers['user-agent'] = this.userAgent;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await fetch(url, {
        method,
        headers,
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new ArsApiError('CONNECTION_FAILED', 0, `Could not reach ${url.origin}: ${(error as Error).cause ?? (error as Error).message}`);
    }
  }

  async json<T>(method: string, path: string, options: { query?: Query; body?: unknown; headers?: Record<string, string> } = {}): Promise<T> {
    const response = await this.send(method, path, options);
    return envelopeData<T>(response);
  }
}

async function envelopeData<T>(response: Response): Promise<T> {
  const requestId = response.headers.get('x-request-id');
  const text = await response.text();
  let body: { ok?: boolean; data?: T; error?: { code?: string; message?: string } } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = undefined;
  }
  if (response.ok && body?.ok === true) return body.data as T;
  const retryAfter = Number(response.headers.get('retry-after'));
  throw new ArsApiError(
    body?.error?.code ?? 'HTTP_ERROR',
    response.status,
    body?.error?.message ?? `HTTP ${response.status} without the error envelope`,
    requestId,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
  );
}

/** Server-Sent Events of `GET /runs/{runId}/events` (gateway README, the live event stream), without resumption. */
async function* serverSentEvents(response: Response): AsyncGenerator<{ id: string | undefined; event: string; data: string }> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: RegExpExecArray | null;
    while ((end = /\r?\n\r?\n/.exec(buffer))) {
      const block = buffer.slice(0, end.index);
      buffer = buffer.slice(end.index + end[0].length);
      let event = 'message';
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'id') id = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) yield { id, event, data: data.join('\n') };
    }
  }
}

class FetchFallbackClient implements ArsApi {
  private readonly http: FetchTransport;

  constructor(options: ArsClientOptions) {
    this.http = new FetchTransport(options.baseUrl, options.token, options.userAgent);
  }

  private api<T>(method: string, path: string, options: { query?: Query; body?: unknown; headers?: Record<string, string> } = {}): Promise<T> {
    return this.http.json<T>(method, `/api/v1/svc${path}`, options);
  }

  readonly repos: ArsApi['repos'] = { list: (query = {}) => this.api('GET', '/repos', { query }) };

  readonly sandboxes: ArsApi['sandboxes'] = {
    list: (query = {}) => this.api('GET', '/sandboxes', { query: { repo_id: query.repoId, status: query.status, limit: query.limit } }),
  };

  readonly automations: ArsApi['automations'] = {
    list: (query = {}) => this.api('GET', '/automations', { query }),
    get: (id) => this.api('GET', `/automations/${encodeURIComponent(id)}`),
    trigger: (id, body, options = {}) =>
      this.api('POST', `/automations/${encodeURIComponent(id)}/trigger`, { body, headers: { 'idempotency-key': options.idempotencyKey ?? randomUUID() } }),
    runs: (id, query = {}) => this.api('GET', `/automations/${encodeURIComponent(id)}/runs`, { query }),
  };

  readonly prReviews: ArsApi['prReviews'] = { rerun: (body) => this.api('POST', '/pr-reviews/rerun', { body }) };

  readonly runs: ArsApi['runs'] = {
    start: (body, options = {}) => this.api('POST', '/runs', { body, headers: { 'idempotency-key': options.idempotencyKey ?? randomUUID() } }),
    get: (runId) => this.api('GET', `/runs/${encodeURIComponent(runId)}`),
    events: (runId, query = {}) => this.api('GET', `/runs/${encodeURIComponent(runId)}/events`, { query }),
    cancel: (runId) => this.api('POST', `/runs/${encodeURIComponent(runId)}/cancel`),
    follow: (runId, options = {}) => this.follow(runId, options),
  };

  readonly mcpServers: ArsApi['mcpServers'] = { list: () => this.api('GET', '/mcp/servers') };

  readonly apiKeys: ArsApi['apiKeys'] = { revokeCurrent: () => this.http.json('DELETE', '/api/settings/api-keys/current') };

  private async *follow(
    runId: string,
    options: { lastEventId?: string; signal?: AbortSignal },
  ): AsyncGenerator<{ type: 'event'; event: RunEvent } | { type: 'run'; run: Run }> {
    const response = await this.http.send('GET', `/api/v1/svc/runs/${encodeURIComponent(runId)}/events`, {
      headers: { accept: 'text/event-stream', ...(options.lastEventId ? { 'last-event-id': options.lastEventId } : {}) },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (!response.ok || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      await envelopeData(response);
      throw new ArsApiError('HTTP_ERROR', response.status, 'The run event stream was not offered');
    }
    // A run event has an `id:` (its type may be anything, `error` included); the run's status
    // (`event: run`) and the stream's own failure (`event: error`) have none.
    for await (const { id, event, data } of serverSentEvents(response)) {
      if (id !== undefined) yield { type: 'event', event: JSON.parse(data) as RunEvent };
      else if (event === 'run') yield { type: 'run', run: JSON.parse(data) as Run };
      else if (event === 'error') {
        const error = JSON.parse(data) as { code?: string; message?: string };
        throw new ArsApiError(error.code ?? 'STREAM_ERROR', 0, error.message ?? 'the event stream ended with an error');
      }
    }
  }
}
