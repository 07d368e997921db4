import type { ChildProcess } from 'node:child_process';
import { freePort, sharedSystem, waitFor } from '@ars/testenv';
import { bearer, call, errorOf, startGatewayUnderTest, startRedis, stopRedis, tenant, type GatewayUnderTest } from '../testing/index.js';

// Redis reconnects with backoff: the gateway's answers are polled, as the local helper did (every 200 ms, 20 s).
const REDIS_BACK = { timeoutMs: 20_000, intervalMs: 200 };

let port: number;
let redis: ChildProcess;
const system = sharedSystem();
let gateway: GatewayUnderTest;
beforeAll(async () => {
  port = await freePort();
  redis = await startRedis(port);
  // The stack's gateway uses the suite's Redis; this one uses the private Redis the test stops.
  gateway = await startGatewayUnderTest({ system: system(), redisUrl: `redis://127.0.0.1:${port}` });
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  if (redis) await stopRedis(redis);
}, 60_000);

describe('the rate-limit backend down fails closed: 503 SERVICE_UNAVAILABLE with Retry-After: 60, never an unlimited pass', () => {
  test('Redis stopped gives 503 on reads and run starts, /readyz names redis, and it recovers when Redis is back', async () => {
    const api = `${gateway.baseUrl}/api/v1/svc`;
    const { account, token } = await tenant(gateway.baseUrl);
    await waitFor('the agents route to answer 200', async () => (await call(`${api}/agents`, { headers: bearer(token.token) })).status === 200, REDIS_BACK);

    await stopRedis(redis);
    const read = await call(`${api}/agents`, { headers: bearer(token.token) });
    expect(read.status).toBe(503);
    expect(read.headers.get('retry-after')).toBe('60');
    expect(errorOf(read).code).toBe('SERVICE_UNAVAILABLE');
    const start = await call(`${api}/runs`, {
      method: 'POST',
      headers: { ...bearer(token.token), 'idempotency-key': 'down' },
      json: { repoId: account.repos[0]?.id, prompt: 'x' },
    });
    expect(start.status).toBe(503);
    expect(start.headers.get('retry-after')).toBe('60');
    expect(gateway.runs.received.filter((r) => r.userId === account.userId)).toHaveLength(0);
    const ready = await call(`${gateway.baseUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(errorOf(ready).message).toContain('redis');
    // authentication still comes first: a bad token is 401, not 503
    expect((await call(`${api}/agents`, { headers: bearer(`tok_${'Q'.repeat(32)}`) })).status).toBe(401);

    redis = await startRedis(port);
    await waitFor('the agents route to answer 200', async () => (await call(`${api}/agents`, { headers: bearer(token.token) })).status === 200, REDIS_BACK);
    expect((await call(`${gateway.baseUrl}/readyz`)).status).toBe(200);
    const started = await call(`${api}/runs`, {
      method: 'POST',
      headers: { ...bearer(token.token), 'idempotency-key': 'up' },
      json: { repoId: account.repos[0]?.id, prompt: 'x' },
    });
    expect(started.status).toBe(202);
  }, 60_000);
});
