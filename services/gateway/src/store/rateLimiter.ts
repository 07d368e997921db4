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
 * What guards a hit: a mark that, when present, refuses it before anything is counted (a revoked
 * PAT's), and the key of the marks' epoch: a value the script makes once and answers with every
 * guarded hit, so a Redis that lost its data (and with it every mark) is told by a new epoch.
 */
export interface ConsumeGuard {
  markKey: string;
  epochKey: string;
}

/** A guarded hit: counted or refused as `consume` does, or not counted because its mark is set; with the marks' epoch. */
export type GuardedConsumeResult = (ConsumeResult | { allowed: false; marked: true }) & { epoch: string };

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
  /** `consume` in the same round trip as a look at `guard`'s mark (set: nothing counted) and its epoch. */
  consumeGuarded(windows: readonly RateWindow[], guard: ConsumeGuard): Promise<GuardedConsumeResult>;
  /** Sets each mark for `ttlMs`, and the epoch when it is missing (the marks are then all there is). */
  mark(markKeys: readonly string[], epochKey: string, ttlMs: number): Promise<void>;
  /** Gives back a reservation (a run-start that turned out to be a replay or failed). */
  refund(windows: readonly RateWindow[], reservation: string): Promise<void>;
  ping(): Promise<boolean>;
  /** Resolves once the first connection is up (start-up and tests); requests never wait for it. */
  connected(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

// KEYS: the windows' logs, then (guarded) the mark and the epoch. ARGV: the member, whether guarded
// (1/0), then each window's limit and length. Answers {code, epoch, added windows…}: code 0 counted,
// i the full window, -1 the mark is set.
const CONSUME_SCRIPT = `
local member = ARGV[1]
local guarded = ARGV[2] == '1'
local windows = #KEYS
local epoch = ''
if guarded then
  windows = windows - 2
  local epochKey = KEYS[windows + 2]
  epoch = redis.call('GET', epochKey)
  if not epoch then
    local t = redis.call('TIME')
    redis.call('SET', epochKey, t[1] .. '.' .. t[2], 'NX')
    epoch = redis.call('GET', epochKey)
  end
  if redis.call('EXISTS', KEYS[windows + 1]) == 1 then
    return {-1, epoch}
  end
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local present = {}
for i = 1, windows do
  local key = KEYS[i]
  local limit = tonumber(ARGV[i * 2 + 1])
  local window = tonumber(ARGV[i * 2 + 2])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  present[i] = redis.call('ZSCORE', key, member) ~= false
  if not present[i] and redis.call('ZCARD', key) >= limit then
    return {i, epoch}
  end
end
local added = {0, epoch}
for i = 1, windows do
  if not present[i] then
    local window = tonumber(ARGV[i * 2 + 2])
    redis.call('ZADD', KEYS[i], now, member)
    redis.call('PEXPIRE', KEYS[i], window)
    table.insert(added, i)
  end
end
return added
`;

// KEYS: the epoch, then the marks. ARGV: the marks' time to live (ms). The epoch is made when missing.
const MARK_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then
  local t = redis.call('TIME')
  redis.call('SET', KEYS[1], t[1] .. '.' .. t[2], 'NX')
end
for i = 2, #KEYS do
  redis.call('SET', KEYS[i], '1', 'PX', ARGV[1])
end
return #KEYS - 1
`;

/**
 * Members of anonymous hits: unique among every gateway sharing the Redis (a random prefix per
 * limiter, then a counter), without a CSPRNG call per request (`randomBytes` was about 2 % of the
 * gateway's time on `GET /repos`, issue 33). Nothing depends on them being unguessable.
 */
export function hitMemberSequence(prefix: string = randomBytes(9).toString('base64url')): () => string {
  let next = 0;
  return () => {
    next += 1;
    return `${prefix}.${next.toString(36)}`;
  };
}

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
  const nextHitMember = hitMemberSequence();
  redis.defineCommand('arsConsume', { lua: CONSUME_SCRIPT });
  redis.defineCommand('arsMark', { lua: MARK_SCRIPT });
  const scripts = redis as unknown as {
    arsConsume(n: number, ...rest: (string | number)[]): Promise<(number | string)[]>;
    arsMark(n: number, ...rest: (string | number)[]): Promise<number>;
  };
  const run = async (
    windows: readonly RateWindow[],
    member: string,
    guard: ConsumeGuard | undefined,
  ): Promise<{ code: number; epoch: string; added: RateWindow[] }> => {
    const keys = windows.map((w) => w.key);
    if (guard) keys.push(guard.markKey, guard.epochKey);
    const args: (string | number)[] = [member, guard ? 1 : 0];
    for (const window of windows) args.push(window.limit, window.windowMs);
    const [code = 0, epoch = '', ...added] = await scripts.arsConsume(keys.length, ...keys, ...args);
    return { code: Number(code), epoch: String(epoch), added: added.map((i) => windows[Number(i) - 1]).filter((w) => w !== undefined) };
  };
  const counted = (windows: readonly RateWindow[], member: string, code: number, added: RateWindow[]): ConsumeResult =>
    code === 0 ? { allowed: true, reservation: member, added } : { allowed: false, exceededKey: windows[code - 1]?.key ?? '' };

  return {
    async consume(windows, member = nextHitMember()) {
      const { code, added } = await run(windows, member, undefined);
      return counted(windows, member, code, added);
    },
    async consumeGuarded(windows, guard) {
      const member = nextHitMember();
      const { code, epoch, added } = await run(windows, member, guard);
      return code === -1 ? { allowed: false, marked: true, epoch } : { ...counted(windows, member, code, added), epoch };
    },
    async mark(markKeys, epochKey, ttlMs) {
      if (markKeys.length === 0) return;
      await scripts.arsMark(markKeys.length + 1, epochKey, ...markKeys, ttlMs);
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
