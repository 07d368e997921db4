/**
 * The one error a source host reports, so callers decide by `kind`:
 * - `not_found`: the repository, pull request, check run or comment is not there (or not reachable);
 * - `unauthorized`: the host refused the credentials (a wrong App key or id);
 * - `forbidden`: the credentials are fine but may not do this;
 * - `unprocessable`: the host refused the content (a review line outside the diff, too many annotations);
 * - `rate_limited`: try again after `retryAfterSeconds` when the host said how long;
 * - `unavailable`: the host failed or could not be reached.
 */
export type SourceHostErrorKind = 'not_found' | 'unauthorized' | 'forbidden' | 'unprocessable' | 'rate_limited' | 'unavailable';

export class SourceHostError extends Error {
  override readonly name = 'SourceHostError';
  readonly kind: SourceHostErrorKind;
  /** The host's HTTP status (the local host answers with the status GitHub would). */
  readonly status: number;
  readonly retryAfterSeconds?: number;

  constructor(kind: SourceHostErrorKind, status: number, message: string, options: { retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.status = status;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** The kind of an HTTP answer from a host; `rateLimitExhausted` is GitHub's 403 with `x-ratelimit-remaining: 0`. */
export function kindOfStatus(status: number, rateLimitExhausted = false): SourceHostErrorKind {
  if (status === 429 || (status === 403 && rateLimitExhausted)) return 'rate_limited';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404 || status === 410) return 'not_found';
  if (status >= 500 || status === 0) return 'unavailable';
  return 'unprocessable';
}
