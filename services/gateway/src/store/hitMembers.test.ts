// The members the rate limiter records anonymous hits under (no servers needed).
import { hitMemberSequence } from './rateLimiter.js';

describe('every hit is recorded under a member of its own, across gateways sharing one Redis', () => {
  test('one limiter never hands out the same member twice', () => {
    const next = hitMemberSequence();
    const members = new Set(Array.from({ length: 10_000 }, () => next()));
    expect(members.size).toBe(10_000);
  });

  test("two limiters' members differ from the first hit on (a random prefix each)", () => {
    const [first, second] = [hitMemberSequence(), hitMemberSequence()];
    expect(first()).not.toBe(second());
  });
});
