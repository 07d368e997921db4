import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export interface RateWindow {
  /** Redis key of this window's log, e.g. `rl:pat:<id>`. */
  key: string;
  limit: number;
  windowMs: number;
}

/**
 * `reservation` identifies the hit; `added` lists the windows this call recorded it in (a keyed hit
 * already present in a window is not counted there twice) — refund exactly those.
 */
export type ConsumeResult = { allowed: true; reservation: string; added: RateWindow[] } | { allowed: false; exceededKey: string };

/**
 * Rolling-window limits kept in Redis as sorted-set logs. One Lua script checks every window and
 * records the hit in all of them, or in none: 100 parallel requests cannot slip past a limit.
 */
export interface RateLimiter {
  /**
   * Records one hit in every window, or in none when one is full. With `member` (a stable id of the
   * hit, e.g. a run start's idempotency key) a window already holding it admits it without counting
   * it again: identical requests racing consume one place.
   */
  consume(windows: readonly RateWindow[], member?: string): Promise<ConsumeResult>;
  /** Gives back a reservation (a run-start that turned out to be a replay or failed). */
  refund(windows: readonly RateWindow[], reservation: string): Promise<void>;
  ping(): Promise<boolean>;
  /** Resolves once the first connection is up (start-up and tests); requests never wait for it. */
  connected(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const CONSUME_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local member = ARGV[1]
local present = {}
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[i * 2])
  local window = tonumber(ARGV[i * 2 + 1])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  present[i] = redis.call('ZSCORE', key, member) ~= false
  if not present[i] and redis.call('ZCARD', key) >= limit then
    return {i}
  end
end
local added = {0}
for i, key in ipairs(KEYS) do
  if not present[i] then
    local window = tonumber(ARGV[i * 2 + 1])
    redis.call('ZADD', key, now, member)
    redis.call('PEXPIRE', key, window)
    table.insert(added, i)
  end
end
return added
`;

export function createRedisRateLimiter(url: string, commandTimeoutMs = 1_000): RateLimiter {
  // No offline queue and a command timeout: with Redis down a request fails at once (503), never waits.
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    connectTimeout: commandTimeoutMs,
    lazyConnect: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  redis.on('error', () => undefined); // surfaced per command; reconnects on its own
  redis.defineCommand('arsConsume', { lua: CONSUME_SCRIPT });
  const consumeCommand = (keys: string[], args: (string | number)[]): Promise<number[]> =>
    (redis as unknown as { arsConsume(n: number, ...rest: (string | number)[]): Promise<number[]> }).arsConsume(keys.length, ...keys, ...args);

  return {
    async consume(windows, member = randomBytes(9).toString('base64url')) {
      const args: (string | number)[] = [member];
      for (const window of windows) args.push(window.limit, window.windowMs);
      const [exceeded = 0, ...added] = await consumeCommand(
        windows.map((w) => w.key),
        args,
      );
      if (exceeded === 0) return { allowed: true, reservation: member, added: added.map((i) => windows[i - 1]).filter((w) => w !== undefined) };
      return { allowed: false, exceededKey: windows[exceeded - 1]?.key ?? '' };
    },
    async refund(windows, reservation) {
      if (windows.length === 0) return;
      const pipeline = redis.multi();
      for (const window of windows) pipeline.zrem(window.key, reservation);
      await pipeline.exec();
    },
    async ping() {
      try {
        return (await redis.ping()) === 'PONG';
      } catch {
        return false;
      }
    },
    connected(timeoutMs = 10_000) {
      if (redis.status === 'ready') return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`Redis not reachable within ${timeoutMs} ms`)), timeoutMs);
        redis.once('ready', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    async close() {
      redis.disconnect();
    },
  };
}
