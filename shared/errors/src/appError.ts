import { ERROR_CODES, type ErrorCode } from './codes.js';

export interface AppErrorOptions {
  /** Extra response headers, e.g. `Retry-After` on 429 and 503. */
  headers?: Record<string, string>;
  /** Structured detail for logs and internal callers; never sent on public 500s. */
  details?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * The one error type. Anything a route, consumer or client throws that a caller should see is an
 * AppError carrying a contract code; everything else becomes 500 INTERNAL_ERROR at the edge.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CODES[code];
    this.headers = options.headers ?? {};
    this.details = options.details;
  }

  static badRequest(message: string, details?: Record<string, unknown>): AppError {
    return new AppError('BAD_REQUEST', message, { details });
  }
  static unauthorized(message = 'Missing or invalid access token'): AppError {
    return new AppError('UNAUTHORIZED', message);
  }
  static forbidden(message: string): AppError {
    return new AppError('FORBIDDEN', message);
  }
  static notFound(message = 'Not found'): AppError {
    return new AppError('NOT_FOUND', message);
  }
  static conflict(message: string): AppError {
    return new AppError('CONFLICT', message);
  }
  /** The same `Idempotency-Key` with another request (CONTRACT.md, Request conventions). */
  static idempotencyConflict(message = 'Idempotency-Key was already used with a different request body'): AppError {
    return new AppError('IDEMPOTENCY_CONFLICT', message);
  }
  static rateLimited(message = 'Rate limit exceeded; retry after 60 seconds', retryAfterSeconds = 60): AppError {
    return new AppError('RATE_LIMITED', message, { headers: { 'Retry-After': String(retryAfterSeconds) } });
  }
  static unavailable(message: string, retryAfterSeconds?: number): AppError {
    const headers: Record<string, string> = retryAfterSeconds === undefined ? {} : { 'Retry-After': String(retryAfterSeconds) };
    return new AppError('SERVICE_UNAVAILABLE', message, { headers });
  }
  static internal(message = 'Internal server error', cause?: unknown): AppError {
    return new AppError('INTERNAL_ERROR', message, { cause });
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

/** Anything thrown becomes an AppError; unknown errors become INTERNAL_ERROR with a fixed message. */
export function toAppError(value: unknown): AppError {
  if (isAppError(value)) return value;
  return AppError.internal('Internal server error', value);
}
