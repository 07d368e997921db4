// The passing of a minute, without waiting for it: the user's minute window of run starts emptied in
// Redis (what the window's own expiry does 60 s after a start), the hour and day windows untouched.
import { testInfrastructure } from '@ars/testenv';
import { Redis } from 'ioredis';
import { runStartWindows } from '../domain/limits.js';

export async function letRunStartMinutePass(userId: string): Promise<void> {
  const minute = runStartWindows(userId).find((window) => window.windowMs === 60_000);
  if (!minute) throw new Error('the run-start budget has no minute window');
  const redis = new Redis(testInfrastructure().redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await redis.del(minute.key);
  } finally {
    redis.disconnect();
  }
}
