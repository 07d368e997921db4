import {
  bearer,
  call,
  createToken,
  dataOf,
  errorOf,
  gatewaySuite,
  letRunStartMinutePass,
  startRunAt,
  tenant,
  type Account,
  type Answer,
} from '../testing/index.js';

/**
 * Run starts here go through a gateway whose runs is a stand-in that records what the gateway sends
 * (keys, body hashes), so the budget accounting is checked on its own and hundreds of starts cost no
 * sandbox; the real runs behind the real gateway is tested in test/runs.
 */
const suite = gatewaySuite({ withStandIns: true });

function startRun(token: string, account: Account, key: string, body?: Record<string, unknown>): Promise<Answer<{ runId: string; replayed: boolean }>> {
  return startRunAt(suite.standInsApi, token, account, key, body);
}

describe('per PAT: 60 requests per rolling 60 s, then 429 RATE_LIMITED with Retry-After: 60', () => {
  test('the 60th request in 60 s passes and the 61st is 429; another PAT of the same user is unaffected', async () => {
    const { account, token } = await tenant(suite.gateway.baseUrl);
    for (let i = 1; i <= 60; i += 1) {
      const answer = await call(`${suite.api}/agents`, { headers: bearer(token.token) });
      expect([i, answer.status]).toEqual([i, 200]);
    }
    const limited = await call(`${suite.api}/agents`, { headers: bearer(token.token) });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('60');
    expect(errorOf(limited).code).toBe('RATE_LIMITED');
    expect(errorOf(limited).message).toMatch(/rate limit exceeded.*60 seconds/i);

    const second = await createToken(suite.gateway.baseUrl, account, { name: 'second' });
    expect((await call(`${suite.api}/agents`, { headers: bearer(second.token) })).status).toBe(200);
  });

  test('every route counts, whatever its answer (401 aside): 429 also on a write route and an unknown id', async () => {
    const { token } = await tenant(suite.gateway.baseUrl);
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => call(`${suite.api}/runs/r${i}`, { headers: bearer(token.token) })));
    expect(answers.every((a) => a.status === 404)).toBe(true);
    const limited = await call(`${suite.api}/sandboxes`, { method: 'POST', headers: bearer(token.token), json: {} });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('60');
  });

  test('100 parallel requests with one PAT: exactly 60 pass', async () => {
    const { token } = await tenant(suite.gateway.baseUrl);
    const answers = await Promise.all(Array.from({ length: 100 }, () => call(`${suite.api}/models`, { headers: bearer(token.token) })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(60);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(40);
  });
});

describe("run starts per user: 10 per minute across all of the user's PATs, independent of other users", () => {
  test('the 11th run start in a minute is 429 across two PATs of one user while another user is unaffected', async () => {
    const { account, token } = await tenant(suite.standIns.baseUrl);
    const second = await createToken(suite.standIns.baseUrl, account, { name: 'second' });
    for (let i = 0; i < 10; i += 1) {
      const answer = await startRun(i % 2 === 0 ? token.token : second.token, account, `start-${i}`);
      expect([i, answer.status]).toEqual([i, 202]);
    }
    for (const pat of [token.token, second.token]) {
      const limited = await startRun(pat, account, `start-over-${pat}`);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('60');
      expect(errorOf(limited).code).toBe('RATE_LIMITED');
      expect(errorOf(limited).message).toContain('10 run starts per minute');
    }
    // reads with the same PATs are not run starts
    expect((await call(`${suite.standInsApi}/agents`, { headers: bearer(token.token) })).status).toBe(200);

    const other = await tenant(suite.standIns.baseUrl);
    expect((await startRun(other.token.token, other.account, 'start-0')).status).toBe(202);
  });

  test('100 parallel run starts of one user: exactly 10 are accepted', async () => {
    const { account } = await tenant(suite.standIns.baseUrl);
    const tokens = await Promise.all(Array.from({ length: 4 }, (_, i) => createToken(suite.standIns.baseUrl, account, { name: `t${i}` })));
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => startRun(tokens[i % 4]?.token ?? '', account, `p-${i}`)));
    expect(answers.filter((a) => a.status === 202)).toHaveLength(10);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(90);
  });

  test('a replay (same key, same body) does not consume the budget', async () => {
    const { account, token } = await tenant(suite.standIns.baseUrl);
    const first = await startRun(token.token, account, 'same');
    expect(dataOf(first).replayed).toBe(false);
    for (let i = 0; i < 12; i += 1) {
      const replay = await startRun(token.token, account, 'same');
      expect(replay.status).toBe(202);
      expect(dataOf(replay)).toMatchObject({ replayed: true, runId: dataOf(first).runId });
    }
    for (let i = 1; i < 10; i += 1) expect((await startRun(token.token, account, `new-${i}`)).status).toBe(202);
    expect((await startRun(token.token, account, 'new-10')).status).toBe(429);
  });

  test('a replay whose key left the minute window is still a replay (202, replayed true), with the minute full of new starts', async () => {
    const { account, token } = await tenant(suite.standIns.baseUrl);
    const first = dataOf(await startRun(token.token, account, 'old'));
    await letRunStartMinutePass(account.userId);
    for (let i = 1; i <= 10; i += 1) expect([i, (await startRun(token.token, account, `fill-${i}`)).status]).toEqual([i, 202]);
    expect((await startRun(token.token, account, 'fill-11')).status).toBe(429);

    const replay = await startRun(token.token, account, 'old');
    expect(replay.status).toBe(202);
    expect(dataOf(replay)).toMatchObject({ runId: first.runId, replayed: true });
    expect(suite.standIns.runs.replayQuestions.filter((key) => key === 'old')).toHaveLength(1);
    // Still full for new runs: the replay took no place, and a new key is still refused.
    const refused = await startRun(token.token, account, 'fill-12');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
  });

  test('with the budget full, a key used with another body is 409 IDEMPOTENCY_CONFLICT, never a new run', async () => {
    const { account, token } = await tenant(suite.standIns.baseUrl);
    await startRun(token.token, account, 'mine', { repoId: account.repos[0]?.id, prompt: 'a' });
    await letRunStartMinutePass(account.userId);
    for (let i = 1; i <= 10; i += 1) await startRun(token.token, account, `full-${i}`);
    const before = suite.standIns.runs.received.length;
    const conflict = await startRun(token.token, account, 'mine', { repoId: account.repos[0]?.id, prompt: 'b' });
    expect(conflict.status).toBe(409);
    expect(errorOf(conflict).code).toBe('IDEMPOTENCY_CONFLICT');
    expect(suite.standIns.runs.received).toHaveLength(before);
  });

  test('the per-PAT limit still applies to replays: the 61st request in 60 s is 429 even as a replay', async () => {
    const { account, token } = await tenant(suite.standIns.baseUrl);
    expect((await startRun(token.token, account, 'replayed')).status).toBe(202);
    for (let i = 2; i <= 60; i += 1) expect([i, (await startRun(token.token, account, 'replayed')).status]).toEqual([i, 202]);
    const limited = await startRun(token.token, account, 'replayed');
    expect(limited.status).toBe(429);
    expect(errorOf(limited).message).toMatch(/per 60 s per token/);
  });

  test('20 identical starts racing take one place: all are answered 202 with one runId, and 9 more starts fit in the minute', async () => {
    const { account, token } = await tenant(suite.standIns.baseUrl);
    const answers = await Promise.all(Array.from({ length: 20 }, () => startRun(token.token, account, 'racing')));
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 20 }, () => 202));
    expect(new Set(answers.map((a) => dataOf(a).runId)).size).toBe(1);
    expect(answers.filter((a) => !dataOf(a).replayed)).toHaveLength(1);
    for (let i = 1; i < 10; i += 1) expect((await startRun(token.token, account, `after-${i}`)).status).toBe(202);
    expect((await startRun(token.token, account, 'after-10')).status).toBe(429);
  });

  test('a start runs refuses (404 repo, 409 key conflict) or the gateway refuses (400) does not consume the budget', async () => {
    const { account, token } = await tenant(suite.standIns.baseUrl);
    for (let i = 0; i < 11; i += 1) {
      const missing = await startRun(token.token, account, `missing-${i}`, { repoId: 'no-such-repo', prompt: 'x' });
      expect(missing.status).toBe(404);
      const invalid = await startRun(token.token, account, `invalid-${i}`, { repoId: 'r' });
      expect(invalid.status).toBe(400);
    }
    expect((await startRun(token.token, account, 'k', { repoId: account.repos[0]?.id, prompt: 'a' })).status).toBe(202);
    const conflict = await startRun(token.token, account, 'k', { repoId: account.repos[0]?.id, prompt: 'b' });
    expect(conflict.status).toBe(409);
    expect(errorOf(conflict).code).toBe('IDEMPOTENCY_CONFLICT');
    for (let i = 1; i < 10; i += 1) expect((await startRun(token.token, account, `ok-${i}`)).status).toBe(202);
    expect((await startRun(token.token, account, 'ok-10')).status).toBe(429);
  });
});
