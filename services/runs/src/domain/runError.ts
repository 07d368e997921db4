import { sanitizeText, type KnownSecrets } from '@ars/sanitize';

/** The most characters a run's `error` keeps, the truncation marker included. */
export const RUN_ERROR_CAP = 2_000;

/**
 * A run's `error` as it is stored and shown: it comes from a sandbox (a harness's or git's message,
 * an agent's own words), so secrets are redacted like an event's, and it is capped like one.
 */
export function runErrorText(error: string | null | undefined, secrets: KnownSecrets): string {
  return sanitizeText(error ?? 'the run failed', { cap: RUN_ERROR_CAP, knownSecrets: secrets });
}
