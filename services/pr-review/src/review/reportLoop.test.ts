import { AppError } from '@ars/errors';
import { SourceHostError } from '@ars/source-host';
import { retryDelayMs } from './reportLoop.js';

describe('a failed report is tried again: after Retry-After when rate limited, with backoff when the host is down, a few times when refused', () => {
  test('429 (or an exhausted rate limit) waits its Retry-After, 60 s when none is given, at any try', () => {
    expect(retryDelayMs(new SourceHostError('rate_limited', 429, 'slow down', { retryAfterSeconds: 7 }), 50)).toBe(7_000);
    expect(retryDelayMs(new SourceHostError('rate_limited', 403, 'exhausted'), 1)).toBe(60_000);
  });

  test('a host that is down: 2 s, 4 s, … doubling, capped at 5 minutes, for 300 tries', () => {
    const down = new SourceHostError('unavailable', 502, 'bad gateway');
    expect([1, 2, 3, 10, 299].map((tries) => retryDelayMs(down, tries))).toEqual([2_000, 4_000, 8_000, 300_000, 300_000]);
    expect(retryDelayMs(down, 300)).toBeNull();
  });

  test('a refusal (403, 404, 422) is tried 5 times, then the attempt fails', () => {
    for (const kind of ['forbidden', 'not_found', 'unprocessable'] as const) {
      const refused = new SourceHostError(kind, 403, 'no');
      expect([1, 2, 3, 4, 5].map((tries) => retryDelayMs(refused, tries))).toEqual([2_000, 4_000, 8_000, 16_000, null]);
    }
    expect(retryDelayMs(AppError.notFound('Repository not found'), 5)).toBeNull();
  });

  test('a peer that is down (503) or anything unexpected is retried like a host that is down', () => {
    expect(retryDelayMs(AppError.unavailable('catalog down'), 1)).toBe(2_000);
    expect(retryDelayMs(new Error('socket hang up'), 4)).toBe(16_000);
  });
});
