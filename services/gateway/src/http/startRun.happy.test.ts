import { startSystem, type System } from '@ars/system-tests/support';
import { bearer, call, dataOf, startGatewayUnderTest, tenant, type GatewayUnderTest } from '../testing/index.js';

let system: System;
/**
 * Run starts here go through a gateway whose runs is a stand-in that records what the gateway sends
 * (keys, body hashes); the real runs behind the real gateway is tested in test/runs.
 */
let withRuns: GatewayUnderTest;
let runsApi: string;
beforeAll(async () => {
  system = await startSystem();
  withRuns = await startGatewayUnderTest({ system });
  runsApi = `${withRuns.baseUrl}/api/v1/svc`;
}, 120_000);
afterAll(async () => {
  await withRuns?.stop();
  await system?.stop();
}, 60_000);

describe('POST /runs: Idempotency-Key required, body validated, canonical body hash sent to runs', () => {
  test('key order and whitespace do not change the body hash: the second call is a replay', async () => {
    const { account, token } = await tenant(withRuns.baseUrl);
    const repoId = account.repos[0]?.id;
    const first = await call<{ replayed: boolean }>(`${runsApi}/runs`, {
      method: 'POST',
      headers: { ...bearer(token.token), 'idempotency-key': 'order', 'content-type': 'application/json' },
      body: JSON.stringify({ repoId, prompt: 'p', harness: 'codex' }),
    });
    const second = await call<{ replayed: boolean }>(`${runsApi}/runs`, {
      method: 'POST',
      headers: { ...bearer(token.token), 'idempotency-key': 'order', 'content-type': 'application/json' },
      body: `{ "harness" : "codex",\n "prompt": "p", "repoId": ${JSON.stringify(repoId)} }`,
    });
    expect(dataOf(first).replayed).toBe(false);
    expect(dataOf(second).replayed).toBe(true);
    const sent = withRuns.runs.received.filter((r) => r.userId === account.userId);
    expect(sent[0]?.bodyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(sent[1]?.bodyHash).toBe(sent[0]?.bodyHash);
  });
});
