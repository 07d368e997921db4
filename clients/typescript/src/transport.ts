// The one way every method talks to the service: the URL, the headers, the success and failure
// envelopes, and the retries (CONTRACT.md, Request conventions, Errors, Limits).
import { ArsApiError } from './errors.js';
import { sleep } from './sleep.js';
import { CLIENT_VERSION } from './version.js';

export const API_PREFIX = '/api/v1/svc';
const RETRIED_STATUSES = new Set([429, 503]);
/** Without a `Retry-After` (and for a network failure): 1 s, 2 s, 4 s … within `maxDelayMs`. */
const FIRST_BACKOFF_MS = 1_000;

export interface RetryOptions {
  /** Attempts of one call in all, the first included (default 3). */
  maxAttempts?: number;
  /** The longest single wait before a retry (default 60 000); a `Retry-After` above it is not waited: the error is thrown. */
  maxDelayMs?: number;
}

export interface TransportOptions {
  baseUrl: string;
  token?: string;
  fetch?: typeof fetch;
  userAgent?: string;
  retry?: RetryOptions;
}

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Under `{baseUrl}/api/v1/svc`, or under `{baseUrl}` itself when `unversioned`. */
  path: string;
  unversioned?: boolean;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** Sent as `Idempotency-Key`, the same on every retry; such a POST is also retried after a network failure. */
  idempotencyKey?: string;
  accept?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** `Retry-After` as milliseconds from now: delta-seconds or an HTTP date (RFC 9110, 10.2.3); null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export class Transport {
  readonly baseUrl: string;
  private readonly token: string | undefined;
  private readonly fetch: typeof fetch;
  private readonly userAgent: string;
  private readonly maxAttempts: number;
  private readonly maxDelayMs: number;

  constructor(options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.token = options.token;
    // Looked up per call when not given, so a caller's later global fetch (a test's, a polyfill) is used.
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const ours = `ars-client-ts/${CLIENT_VERSION} node/${process.versions.node}`;
    this.userAgent = options.userAgent ? `${options.userAgent} ${ours}` : ours;
    this.maxAttempts = Math.max(1, options.retry?.maxAttempts ?? 3);
    this.maxDelayMs = Math.max(0, options.retry?.maxDelayMs ?? 60_000);
  }

  url(spec: Pick<RequestSpec, 'path' | 'unversioned' | 'query'>): string {
    const url = new URL(`${this.baseUrl}${spec.unversioned ? '' : API_PREFIX}${spec.path}`);
    for (const [key, value] of Object.entries(spec.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    return url.toString();
  }

  /** The success envelope's `data`. */
  async request<T>(spec: RequestSpec): Promise<T> {
    const response = await this.send(spec);
    const text = await readText(response);
    const envelope = parseJson(text);
    if (isRecord(envelope) && envelope.ok === true && 'data' in envelope) return envelope.data as T;
    throw invalidResponse(response, text);
  }

  /**
   * A 2xx answer, its body unread (the event stream reads it as it comes). 429 and 503 are retried
   * after `Retry-After`; a network failure only for a GET or a keyed POST (a POST without a key may
   * have been done once already). Every other failure is the ArsApiError of its envelope.
   */
  async send(spec: RequestSpec): Promise<Response> {
    const retriesNetwork = spec.method === 'GET' || spec.idempotencyKey !== undefined;
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= this.maxAttempts;
      let response: Response;
      try {
        response = await this.fetch(this.url(spec), this.init(spec));
      } catch (error) {
        if (spec.signal?.aborted) throw spec.signal.reason;
        const delay = backoff(attempt);
        if (last || !retriesNetwork || delay > this.maxDelayMs) throw connectionFailed(this.baseUrl, error);
        await sleep(delay, spec.signal);
        continue;
      }
      if (response.ok) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      if (RETRIED_STATUSES.has(response.status) && !last) {
        const delay = asked ?? backoff(attempt);
        if (delay <= this.maxDelayMs) {
          await response.body?.cancel().catch(() => undefined);
          await sleep(delay, spec.signal);
          continue;
        }
      }
      throw await failure(response, asked);
    }
  }

  private init(spec: RequestSpec): RequestInit {
    const headers: Record<string, string> = { Accept: spec.accept ?? 'application/json', 'User-Agent': this.userAgent, ...spec.headers };
    if (this.token !== undefined) headers.Authorization = `Bearer ${this.token}`;
    if (spec.idempotencyKey !== undefined) headers['Idempotency-Key'] = spec.idempotencyKey;
    const init: RequestInit = { method: spec.method, headers };
    if (spec.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(spec.body);
    }
    if (spec.signal) init.signal = spec.signal;
    return init;
  }
}

function backoff(attempt: number): number {
  return FIRST_BACKOFF_MS * 2 ** (attempt - 1);
}

function requestIdOf(response: Response): string | null {
  return response.headers.get('x-request-id');
}

export function connectionFailed(baseUrl: string, error: unknown): ArsApiError {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const reason = (cause as { code?: unknown })?.code ?? (cause instanceof Error ? cause.message : String(cause));
  return new ArsApiError({ code: 'CONNECTION_FAILED', status: 0, message: `Could not reach the service at ${baseUrl}: ${String(reason)}`, cause: error });
}

/** The failure envelope's code and message; an answer that is not one is INVALID_RESPONSE with its status. */
async function failure(response: Response, retryAfter: number | null): Promise<ArsApiError> {
  const text = await readText(response).catch(() => '');
  const envelope = parseJson(text);
  const error = isRecord(envelope) && envelope.ok === false && isRecord(envelope.error) ? envelope.error : undefined;
  const retryAfterSeconds = retryAfter === null ? null : Math.ceil(retryAfter / 1000);
  if (error && typeof error.code === 'string') {
    const message = typeof error.message === 'string' ? error.message : error.code;
    return new ArsApiError({ code: error.code, status: response.status, message, requestId: requestIdOf(response), retryAfterSeconds });
  }
  const invalid = invalidResponse(response, text);
  return new ArsApiError({ code: invalid.code, status: invalid.status, message: invalid.message, requestId: invalid.requestId, retryAfterSeconds });
}

export function invalidResponse(response: Response, text: string): ArsApiError {
  const excerpt = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return new ArsApiError({
    code: 'INVALID_RESPONSE',
    status: response.status,
    message: `HTTP ${response.status}: the answer is not the service's JSON envelope (${response.headers.get('content-type') ?? 'no content type'}): ${JSON.stringify(excerpt)}`,
    requestId: requestIdOf(response),
  });
}

async function readText(response: Response): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    throw new ArsApiError({
      code: 'CONNECTION_FAILED',
      status: 0,
      message: `The answer was cut off: ${String(error)}`,
      requestId: requestIdOf(response),
      cause: error,
    });
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
