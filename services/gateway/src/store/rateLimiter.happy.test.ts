import { randomUUID } from 'node:crypto';
import { testInfrastructure } from '@ars/testenv';
import { createRedisRateLimiter, type RateLimiter, type RateWindow } from './rateLimiter.js';

let limiter: RateLimiter;
beforeAll(async () => {
  limiter = createRedisRateLimiter(testInfrastructure().redisUrl);
  await limiter.connected();
});
afterAll(async () => {
  await limiter.close();
});

const window = (limit: number, windowMs = 60_000): RateWindow => ({ key: `test:${randomUUID()}`, limit, windowMs });

describe('a rolling window admits exactly its limit', () => {
  test('the 60th hit in 60 s is allowed and the 61st is not', async () => {
    const perToken = window(60);
    for (let i = 1; i <= 60; i += 1) expect((await limiter.consume([perToken])).allowed).toBe(true);
    expect(await limiter.consume([perToken])).toEqual({ allowed: false, exceededKey: perToken.key });
  });

  test('100 parallel hits against a limit of 10 admit exactly 10', async () => {
    const w = window(10);
    const results = await Promise.all(Array.from({ length: 100 }, () => limiter.consume([w])));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
  });

  test('hits older than the window no longer count', async () => {
    const w = window(2, 300);
    expect((await limiter.consume([w])).allowed).toBe(true);
    expect((await limiter.consume([w])).allowed).toBe(true);
    expect((await limiter.consume([w])).allowed).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await limiter.consume([w])).allowed).toBe(true);
  });
});

describe('several windows are consumed together or not at all', () => {
  test('a hit refused by one window is recorded in none', async () => {
    const minute = window(1);
    const hour = window(5);
    expect((await limiter.consume([minute, hour])).allowed).toBe(true);
    expect(await limiter.consume([minute, hour])).toEqual({ allowed: false, exceededKey: minute.key });
    // the hour window saw one hit only: four more fit once the minute window is out of the way
    for (let i = 0; i < 4; i += 1) expect((await limiter.consume([hour])).allowed).toBe(true);
    expect((await limiter.consume([hour])).allowed).toBe(false);
  });

  test('a refunded reservation frees its place in every window', async () => {
    const a = window(1);
    const b = window(1);
    const first = await limiter.consume([a, b]);
    if (!first.allowed) throw new Error('first hit refused');
    expect((await limiter.consume([a, b])).allowed).toBe(false);
    await limiter.refund([a, b], first.reservation);
    expect((await limiter.consume([a, b])).allowed).toBe(true);
  });
});

describe("a keyed hit (one run start's idempotency key) takes one place however often it is sent", () => {
  test('100 parallel hits with one member take one place; another member takes the next', async () => {
    const w = window(2);
    const results = await Promise.all(Array.from({ length: 100 }, () => limiter.consume([w], 'key-a')));
    expect(results.every((r) => r.allowed)).toBe(true);
    expect(results.filter((r) => r.allowed && r.added.length === 1)).toHaveLength(1);
    expect((await limiter.consume([w], 'key-b')).allowed).toBe(true);
    expect((await limiter.consume([w], 'key-c')).allowed).toBe(false);
    expect((await limiter.consume([w], 'key-a')).allowed).toBe(true);
  });

  test("refunding what a later hit added leaves the first hit's place taken", async () => {
    const w = window(1);
    const first = await limiter.consume([w], 'key-a');
    const again = await limiter.consume([w], 'key-a');
    if (!first.allowed || !again.allowed) throw new Error('refused');
    expect(again.added).toEqual([]);
    await limiter.refund(again.added, again.reservation);
    expect((await limiter.consume([w], 'key-b')).allowed).toBe(false);
    await limiter.refund(first.added, first.reservation);
    expect((await limiter.consume([w], 'key-b')).allowed).toBe(true);
  });
});
