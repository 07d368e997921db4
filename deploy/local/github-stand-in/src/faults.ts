// Fault injection (`failNext`): the next requests matching a method and path are answered with the
// fault's status instead, as GitHub answers a rate limit, a refusal or its own failure.
import { githubError, type HttpAnswer } from './httpAnswer.js';

/** The next `times` requests matching the method and path are answered with `status` instead. */
export interface StandInFault {
  method: string;
  /** The exact request path (no query), or a pattern tested against it. */
  path: string | RegExp;
  status: 403 | 404 | 422 | 429 | 500 | 502 | 503;
  /** Default 1. */
  times?: number;
  /** Sent as `Retry-After`. */
  retryAfterSeconds?: number;
  /** A 403 of an exhausted primary rate limit: `x-ratelimit-remaining: 0` and `x-ratelimit-reset`. */
  rateLimitExhausted?: boolean;
  message?: string;
}

export class Faults {
  private readonly pending: (StandInFault & { left: number })[] = [];

  add(fault: StandInFault): void {
    this.pending.push({ ...fault, left: fault.times ?? 1 });
  }

  /** The fault that answers this request instead, if any (the request uses up one of its times). */
  take(method: string, path: string): StandInFault | undefined {
    const fault = this.pending.find((f) => f.left > 0 && f.method === method && (typeof f.path === 'string' ? f.path === path : f.path.test(path)));
    if (fault) fault.left -= 1;
    return fault;
  }
}

/** GitHub's answer for the fault: its status, message and rate-limit headers. */
export function faultAnswer(fault: StandInFault): HttpAnswer {
  const headers: Record<string, string> = {};
  if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
  if (fault.rateLimitExhausted) {
    headers['x-ratelimit-limit'] = '5000';
    headers['x-ratelimit-remaining'] = '0';
    headers['x-ratelimit-reset'] = String(Math.floor(Date.now() / 1000) + 60);
  }
  const message =
    fault.message ??
    (fault.status === 429 || fault.rateLimitExhausted
      ? 'API rate limit exceeded for installation.'
      : fault.status === 403
        ? 'Resource not accessible by integration'
        : fault.status === 422
          ? 'Unprocessable Entity'
          : 'Server Error');
  return githubError(fault.status, message, headers);
}
