/**
 * Every failure the client reports: the service's error envelope (`code` as CONTRACT.md, Errors,
 * lists it, with the HTTP status), or one the client names itself: `CONNECTION_FAILED` (status 0,
 * the service could not be reached), `INVALID_RESPONSE` (the answer was not the JSON envelope), and
 * `TIMEOUT` (status 0, `runs.wait()` gave up). Branch on `code`, never on `message`.
 */
export class ArsApiError extends Error {
  override readonly name = 'ArsApiError';
  readonly code: string;
  /** The HTTP status; 0 when there was no answer (CONNECTION_FAILED, TIMEOUT). */
  readonly status: number;
  /** The answer's `X-Request-Id` (quote it when reporting a 500), or null. */
  readonly requestId: string | null;
  /** Seconds the service asked to wait (`Retry-After`) before trying again, or null. */
  readonly retryAfterSeconds: number | null;

  constructor(fields: { code: string; status: number; message: string; requestId?: string | null; retryAfterSeconds?: number | null; cause?: unknown }) {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.code = fields.code;
    this.status = fields.status;
    this.requestId = fields.requestId ?? null;
    this.retryAfterSeconds = fields.retryAfterSeconds ?? null;
  }
}
