import { channel } from 'node:diagnostics_channel';
import { context, propagation } from '@opentelemetry/api';
import { Pool, type Dispatcher } from 'undici';
import { AppError, codeForHttpStatus, ERROR_CODES, type ErrorCode } from '@ars/errors';
import { currentRequest, CALLER_SERVICE_HEADER, INTERNAL_TOKEN_HEADER, REQUEST_ID_HEADER } from '@ars/http-app';
import type { Logger } from '@ars/logger';

export interface HttpClientOptions {
  /** The peer's base URL, optionally with a path prefix: `http://127.0.0.1:8082/internal`. */
  baseUrl: string;
  /** This service's name, sent as `X-Caller-Service`. */
  caller: string;
  /** Sent as `X-Internal-Token` when set. */
  internalToken?: string | undefined;
  /** Deadline of each request (connect + headers + body), default 5000 ms. */
  timeoutMs?: number;
  logger: Logger;
  /** The peer's name in messages and logs; default the base URL's host. */
  peer?: string;
  /** Keep-alive connections to the peer, default 16. */
  connections?: number;
}

export type QueryValue = string | number | boolean | undefined | null;

export interface RequestOptions {
  query?: Record<string, QueryValue | readonly QueryValue[]>;
  headers?: Record<string, string>;
  /** Overrides the client's deadline for this call. */
  timeoutMs?: number;
  /** Aborts the call (combined with the deadline). */
  signal?: AbortSignal;
  /** Overrides the propagated request id. */
  requestId?: string;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpClient {
  /** Resolves with `data` of the peer's success envelope; rejects with an AppError. */
  request<T>(method: HttpMethod, path: string, options?: RequestOptions & { body?: unknown }): Promise<T>;
  get<T>(path: string, options?: RequestOptions): Promise<T>;
  post<T>(path: string, body?: unknown, options?: RequestOptions): Promise<T>;
  put<T>(path: string, body?: unknown, options?: RequestOptions): Promise<T>;
  patch<T>(path: string, body?: unknown, options?: RequestOptions): Promise<T>;
  delete<T>(path: string, options?: RequestOptions): Promise<T>;
  /** Closes the keep-alive pool (in-flight calls finish). */
  close(): Promise<void>;
}

const IDEMPOTENT = new Set<HttpMethod>(['GET', 'PUT', 'DELETE']);
const SOCKET_ERRORS = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);
/** When OpenTelemetry's undici instrumentation listens here it injects `traceparent` itself. */
const undiciRequestChannel = channel('undici:request:create');

function queryString(query: RequestOptions['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    const values = Array.isArray(value) ? value : [value];
    for (const item of values) if (item !== undefined && item !== null) params.append(key, String(item));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  const cause = (error as { cause?: unknown }).cause;
  return cause === undefined ? undefined : errorCode(cause);
}

function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/**
 * The JSON text of a request body. A value too deep for `JSON.stringify` (a RangeError from the stack)
 * or one JSON cannot hold (a cycle, a BigInt) is a 400 that names neither the peer nor the cause's
 * internals: the same request can never succeed, so it must not read as a retryable outage.
 */
function serialisedBody(body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch (error) {
    const why = error instanceof RangeError ? 'it nests too deeply' : 'it holds a value JSON cannot represent';
    throw new AppError('BAD_REQUEST', `The request body cannot be sent: ${why}`, { cause: error });
  }
}

interface FailureBody {
  ok: false;
  error: { code: ErrorCode; message: string };
}

function asFailure(body: unknown): FailureBody | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const candidate = body as { ok?: unknown; error?: { code?: unknown; message?: unknown } };
  if (candidate.ok !== false || typeof candidate.error !== 'object' || candidate.error === null) return undefined;
  if (!isErrorCode(candidate.error.code) || typeof candidate.error.message !== 'string') return undefined;
  return body as FailureBody;
}

/**
 * An internal HTTP client for one peer on an undici keep-alive pool. Every call has a deadline, sends
 * `X-Caller-Service`, `X-Internal-Token` (when configured), `X-Request-Id` (the current request's)
 * and W3C `traceparent`, and returns the `data` of a success envelope. Failures are AppErrors: the
 * peer's own code and message for its failure envelopes; SERVICE_UNAVAILABLE when the peer is down,
 * refuses the connection or misses the deadline; a code from the HTTP status otherwise.
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const base = new URL(options.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const peer = options.peer ?? base.host;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const pool = new Pool(base.origin, {
    connections: options.connections ?? 16,
    // Below the servers' 5 s keep-alive so we never reuse a socket the peer is closing.
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 30_000,
    connect: { timeout: Math.min(timeoutMs, 3_000) },
  });
  const log = options.logger.child({ component: 'http-client', peer });

  const headersFor = (requestOptions: RequestOptions, hasBody: boolean): Record<string, string> => {
    const headers: Record<string, string> = { accept: 'application/json', ...requestOptions.headers };
    headers[CALLER_SERVICE_HEADER.toLowerCase()] = options.caller;
    if (options.internalToken) headers[INTERNAL_TOKEN_HEADER.toLowerCase()] = options.internalToken;
    const requestId = requestOptions.requestId ?? currentRequest()?.requestId;
    if (requestId) headers[REQUEST_ID_HEADER.toLowerCase()] = requestId;
    if (hasBody) headers['content-type'] = 'application/json';
    if (!undiciRequestChannel.hasSubscribers) propagation.inject(context.active(), headers);
    return headers;
  };

  const send = async (
    method: HttpMethod,
    path: string,
    requestOptions: RequestOptions & { body?: unknown },
  ): Promise<Dispatcher.ResponseData & { text: string }> => {
    const hasBody = requestOptions.body !== undefined;
    const deadline = requestOptions.timeoutMs ?? timeoutMs;
    const timeout = AbortSignal.timeout(deadline);
    const signal = requestOptions.signal ? AbortSignal.any([timeout, requestOptions.signal]) : timeout;
    const fullPath = `${prefix}${path.startsWith('/') ? path : `/${path}`}${queryString(requestOptions.query)}`;
    // Serialised before the call, outside the network failure mapping: a body that cannot be sent is
    // the caller's mistake, never the peer being down.
    const body = hasBody ? serialisedBody(requestOptions.body) : null;
    const attempt = async (): Promise<Dispatcher.ResponseData & { text: string }> => {
      const response = await pool.request({
        method,
        path: fullPath,
        headers: headersFor(requestOptions, hasBody),
        body,
        signal,
        headersTimeout: deadline,
        bodyTimeout: deadline,
      });
      const text = await response.body.text();
      return Object.assign(response, { text });
    };
    try {
      try {
        return await attempt();
      } catch (error) {
        // A keep-alive socket the peer closed under us: safe to retry an idempotent call once.
        if (IDEMPOTENT.has(method) && SOCKET_ERRORS.has(errorCode(error) ?? '') && !signal.aborted) return await attempt();
        throw error;
      }
    } catch (error) {
      if (timeout.aborted || ['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'].includes(errorCode(error) ?? '')) {
        throw new AppError('SERVICE_UNAVAILABLE', `${peer} did not answer within ${deadline} ms`, { cause: error, details: { peer, method, path } });
      }
      if (requestOptions.signal?.aborted) throw error;
      const code = errorCode(error);
      const what = code === 'ECONNREFUSED' ? 'connection refused' : code === 'UND_ERR_CONNECT_TIMEOUT' ? 'connect timeout' : (code ?? 'network error');
      throw new AppError('SERVICE_UNAVAILABLE', `${peer} is unreachable (${what})`, { cause: error, details: { peer, method, path } });
    }
  };

  const request = async <T>(method: HttpMethod, path: string, requestOptions: RequestOptions & { body?: unknown } = {}): Promise<T> => {
    const started = process.hrtime.bigint();
    const elapsed = () => Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10;
    let response: Dispatcher.ResponseData & { text: string };
    try {
      response = await send(method, path, requestOptions);
    } catch (error) {
      log.warn({ method, path, duration_ms: elapsed(), err: error }, 'peer call failed');
      throw error;
    }
    const { statusCode, text } = response;
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (statusCode < 300 && typeof body === 'object' && body !== null && (body as { ok?: unknown }).ok === true) {
      log.debug({ method, path, status: statusCode, duration_ms: elapsed() }, 'peer call');
      return (body as { data: T }).data;
    }
    if (statusCode === 204 && text === '') return undefined as T;
    const retryAfter = response.headers['retry-after'];
    const headers: Record<string, string> = typeof retryAfter === 'string' ? { 'Retry-After': retryAfter } : {};
    const failure = asFailure(body);
    const error = failure
      ? new AppError(failure.error.code, failure.error.message, { headers, details: { peer, method, path, status: statusCode } })
      : statusCode < 300
        ? new AppError('INTERNAL_ERROR', `${peer} answered ${method} ${path} without an envelope`, { details: { peer, status: statusCode } })
        : new AppError(codeForHttpStatus(statusCode), `${peer} answered HTTP ${statusCode}`, { headers, details: { peer, method, path, status: statusCode } });
    // A peer's 4xx is an answer (not found, conflict), not a fault of the call.
    const line = { method, path, status: statusCode, code: error.code, duration_ms: elapsed() };
    if (statusCode >= 500) log.warn(line, 'peer call failed');
    else log.debug(line, 'peer call refused');
    throw error;
  };

  return {
    request,
    get: (path, requestOptions) => request('GET', path, requestOptions),
    post: (path, body, requestOptions) => request('POST', path, { ...requestOptions, body }),
    put: (path, body, requestOptions) => request('PUT', path, { ...requestOptions, body }),
    patch: (path, body, requestOptions) => request('PATCH', path, { ...requestOptions, body }),
    delete: (path, requestOptions) => request('DELETE', path, requestOptions),
    close: () => pool.close(),
  };
}
