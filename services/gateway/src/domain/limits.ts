/** CONTRACT.md, Limits. */
export const PER_TOKEN_LIMIT = { limit: 60, windowMs: 60_000 } as const;

export const RUN_START_LIMITS = [
  { name: 'minute', limit: 10, windowMs: 60_000 },
  { name: 'hour', limit: 30, windowMs: 3_600_000 },
  { name: 'day', limit: 150, windowMs: 86_400_000 },
] as const;

export const RETRY_AFTER_SECONDS = 60;
