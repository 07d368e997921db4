import { bearer, call, errorOf, gatewaySuite, startRunAt, tenant, type Account, type Answer } from '../testing/index.js';

/**
 * Run starts here go through a gateway whose runs is a stand-in that records what the gateway sends
 * (keys, body hashes); the real runs behind the real gateway is tested in test/runs.
 */
const suite = gatewaySuite({ withStandIns: true });

function startRun(token: string, account: Account, key: string, body?: Record<string, unknown>): Promise<Answer<{ runId: string; replayed: boolean }>> {
  return startRunAt(suite.standInsApi, token, account, key, body);
}

describe('POST /runs: Idempotency-Key required, body validated, canonical body hash sent to runs', () => {
  test('missing key is 400 saying it is required; a key over 200 characters is 400', async () => {
    const { account, token } = await tenant(suite.standIns.baseUrl);
    const missing = await call(`${suite.standInsApi}/runs`, {
      method: 'POST',
      headers: bearer(token.token),
      json: { repoId: account.repos[0]?.id, prompt: 'x' },
    });
    expect(missing.status).toBe(400);
    expect(errorOf(missing).message).toContain('Idempotency-Key header is required');
    expect((await startRun(token.token, account, 'k'.repeat(200))).status).toBe(202);
    const long = await startRun(token.token, account, 'k'.repeat(201));
    expect(long.status).toBe(400);
    expect(errorOf(long).message).toContain('200');
  });

  test.each([
    [{ prompt: 'x' }, 'repoId is required'],
    [{ repoId: 'r' }, 'prompt is required'],
    [{ repoId: 'r', prompt: 'x', harness: 'gpt' }, 'harness must be one of codex, claude-code'],
    [{ repoId: 'r', prompt: 'x'.repeat(100_001) }, 'prompt must be at most 100000 characters'],
    [{ repoId: 'r', prompt: '😀'.repeat(100_001) }, 'prompt must be at most 100000 characters'],
    [{ repoId: 'r', prompt: 'x', model: 'gpt-5-codex' }, 'model is not allowed'],
  ])('%j is 400 naming the field', async (body, message) => {
    const { account, token } = await tenant(suite.standIns.baseUrl);
    const answer = await startRun(token.token, account, 'v', body);
    expect(answer.status).toBe(400);
    expect(errorOf(answer).message).toBe(message);
  });
});
