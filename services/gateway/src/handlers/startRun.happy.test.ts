import { bearer, call, dataOf, gatewaySuite, tenant } from '../testing/index.js';

/**
 * Run starts here go through a gateway whose runs is a stand-in that records what the gateway sends
 * (keys, body hashes); the real runs behind the real gateway is tested in test/runs.
 */
const suite = gatewaySuite({ withStandIns: true });

describe('POST /runs: Idempotency-Key required, body validated, canonical body hash sent to runs', () => {
  test('key order and whitespace do not change the body hash: the second call is a replay', async () => {
    const { account, token } = await tenant(suite.standIns.baseUrl);
    const repoId = account.repos[0]?.id;
    const first = await call<{ replayed: boolean }>(`${suite.standInsApi}/runs`, {
      method: 'POST',
      headers: { ...bearer(token.token), 'idempotency-key': 'order', 'content-type': 'application/json' },
      body: JSON.stringify({ repoId, prompt: 'p', harness: 'codex' }),
    });
    const second = await call<{ replayed: boolean }>(`${suite.standInsApi}/runs`, {
      method: 'POST',
      headers: { ...bearer(token.token), 'idempotency-key': 'order', 'content-type': 'application/json' },
      body: `{ "harness" : "codex",\n "prompt": "p", "repoId": ${JSON.stringify(repoId)} }`,
    });
    expect(dataOf(first).replayed).toBe(false);
    expect(dataOf(second).replayed).toBe(true);
    const sent = suite.standIns.runs.received.filter((r) => r.userId === account.userId);
    expect(sent[0]?.bodyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(sent[1]?.bodyHash).toBe(sent[0]?.bodyHash);
  });
});
