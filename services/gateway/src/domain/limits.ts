/** CONTRACT.md, Limits. */
export const PER_TOKEN_LIMIT = { limit: 60, windowMs: 60_000 } as const;

export const RUN_START_LIMITS = [
  { name: 'minute', limit: 10, windowMs: 60_000 },
  { name: 'hour', limit: 30, windowMs: 3_600_000 },
  { name: 'day', limit: 150, windowMs: 86_400_000 },
] as const;

export const RETRY_AFTER_SECONDS = 60;

export interface LimitWindow {
  key: string;
  limit: number;
  windowMs: number;
}

/** 60 requests per rolling 60 s, per PAT (every request with it). */
export function perTokenWindow(tokenId: string): LimitWindow {
  return { key: `rl:pat:${tokenId}`, ...PER_TOKEN_LIMIT };
}

/** The run-start budget of one user, shared by all of the user's PATs. */
export function runStartWindows(userId: string): LimitWindow[] {
  return RUN_START_LIMITS.map((w) => ({ key: `rl:runs:${userId}:${w.name}`, limit: w.limit, windowMs: w.windowMs }));
}

export const PER_TOKEN_EXCEEDED = `Rate limit exceeded: ${PER_TOKEN_LIMIT.limit} requests per 60 s per token; retry after ${RETRY_AFTER_SECONDS} seconds`;

export function runStartExceededMessage(exceededKey: string): string {
  const window = RUN_START_LIMITS.find((w) => exceededKey.endsWith(`:${w.name}`)) ?? RUN_START_LIMITS[0];
  return `Run-start rate limit exceeded: ${window.limit} run starts per ${window.name} per user; retry after ${RETRY_AFTER_SECONDS} seconds`;
}

export const LIMITER_UNAVAILABLE = `Rate-limit backend unavailable; retry after ${RETRY_AFTER_SECONDS} seconds`;

/**
 * How long a gateway keeps a PAT it looked up in MongoDB. Expiry is checked against the kept
 * `expiresAt` on every request; revocation by the PAT's mark in Redis, read in the per-PAT limit's
 * own round trip (`patRevocation`).
 */
export const PAT_CACHE_TTL_MS = 15_000;

/** A revoked PAT's mark lives far longer than any kept copy of the PAT (PAT_CACHE_TTL_MS). */
export const REVOCATION_MARK_TTL_MS = 600_000;

/** The revocation marks' epoch: a new value means Redis lost its data, marks included. */
export const REVOCATION_EPOCH_KEY = 'rl:pat-revoked:epoch';

/** The mark of a revoked PAT, set before the revocation is written to MongoDB. */
export function revocationMarkKey(tokenId: string): string {
  return `rl:pat-revoked:${tokenId}`;
}
