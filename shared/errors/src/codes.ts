/** The contract's error codes (CONTRACT.md, Errors). `code` values are stable; messages are not. */
export const ERROR_CODES = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  IDEMPOTENCY_CONFLICT: 409,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export function httpStatusOf(code: ErrorCode): number {
  return ERROR_CODES[code];
}

/** Maps an HTTP status that did not come with a contract code (a proxy, a crashed peer) to one. */
export function codeForHttpStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
    case 405:
    case 413:
    case 415:
    case 422:
      return 'BAD_REQUEST';
    case 401:
      return 'UNAUTHORIZED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'CONFLICT';
    case 429:
      return 'RATE_LIMITED';
    case 502:
    case 503:
    case 504:
      return 'SERVICE_UNAVAILABLE';
    default:
      return 'INTERNAL_ERROR';
  }
}
