import type { ChildProcess } from 'node:child_process';
import { freePort, sharedSystem } from '@ars/testenv';
import { startGatewayUnderTest, startRedis, stopRedis, tenant, type GatewayUnderTest } from '../testing/index.js';

// The limit counts per client address, and every test speaks from 127.0.0.1: this gateway keeps its
// counts in a private Redis, so no other test's refused tokens fill its window. The gateway runs in
// this test's process: a busy machine can stall it past the default 1 s Redis timeout, and a count
// that times out fails open (the 401 stands), so it is given 5 s.
let redis: ChildProcess;
const system = sharedSystem();
let gateway: GatewayUnderTest;
beforeAll(async () => {
  const port = await freePort();
  redis = await startRedis(port);
  gateway = await startGatewayUnderTest({
    system: system(),
    redisUrl: `redis://127.0.0.1:${port}`,
    env: { MCP_FAILED_AUTH_PER_MINUTE: '3', RATE_LIMIT_TIMEOUT_MS: '5000' },
  });
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  if (redis) await stopRedis(redis);
}, 60_000);

async function ping(authorization?: string): Promise<{ status: number; code: number | undefined; retryAfter: string | null }> {
  const answer = await fetch(`${gateway.baseUrl}/api/v1/svc/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  const json = (await answer.json()) as { error?: { code: number } };
  return { status: answer.status, code: json.error?.code, retryAfter: answer.headers.get('retry-after') };
}

describe('the authentication rate limit of /mcp: refused tokens per client address, then 429 -32002', () => {
  test('requests without a token are discovery and are not counted', async () => {
    for (let i = 0; i < 5; i++) expect(await ping()).toMatchObject({ status: 401, code: -32001 });
  });

  test('three refused tokens are 401 -32001; the fourth within the minute is 429 -32002 with Retry-After; a valid PAT still passes', async () => {
    for (let i = 0; i < 3; i++) expect(await ping(`Bearer tok_${String(i).repeat(32)}`)).toMatchObject({ status: 401, code: -32001 });
    expect(await ping('Bearer some-opaque-token-that-is-not-issued')).toEqual({ status: 429, code: -32002, retryAfter: '60' });
    const { token } = await tenant(gateway.baseUrl);
    expect((await ping(`Bearer ${token.token}`)).status).toBe(200);
  });
});
