import { MAX_IDEMPOTENCY_KEY_LENGTH, idempotencyKeyProblem } from './idempotency.js';

describe('an Idempotency-Key: required, at most 200 characters, what an HTTP header can carry', () => {
  test('a key of any printable format and case is accepted, up to 200 characters', () => {
    for (const key of ['k', 'Run-1', 'a b\tc', '550e8400-e29b-41d4-a716-446655440000', 'ÿé', 'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH)]) {
      expect(idempotencyKeyProblem(key)).toBeNull();
    }
  });

  test('a missing, empty or over-long key is refused with the reason', () => {
    expect(idempotencyKeyProblem(undefined)).toBe('Idempotency-Key header is required');
    expect(idempotencyKeyProblem('')).toBe('Idempotency-Key header is required');
    expect(idempotencyKeyProblem('k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH + 1))).toMatch(/at most 200 characters/);
  });

  test('a key no header can carry (a NUL, a control character, U+202E, an emoji: an MCP tool’s JSON argument) is refused, not forwarded', () => {
    for (const key of ['\u0000', 'a\u0007b', 'a\r\nSet-Cookie: x', '\u202Egnp.exe', 'k😀', '\u007f']) {
      expect(idempotencyKeyProblem(key)).toMatch(/characters an HTTP header can carry/);
    }
  });
});
