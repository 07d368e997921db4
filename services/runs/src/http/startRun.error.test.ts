import { requestHash } from '@ars/idempotency';
import { startRunsHarness, type RunsHarness } from '../testing/runsHarness.js';

let h: RunsHarness;
beforeAll(async () => {
  h = await startRunsHarness();
});
afterAll(async () => {
  await h.stop();
});

const startWith = (userId: string, body: unknown, headers: Record<string, string>) =>
  h.call('POST', `/internal/users/${userId}/runs`, body, { 'x-internal-token': h.token, ...headers });

describe('Idempotency-Key is required and at most 200 characters: else 400 BAD_REQUEST', () => {
  test('missing key: 400 saying the key is required', async () => {
    const { userId, repoId } = await h.newTenant();
    const body = { repoId, prompt: 'p' };
    const answer = await startWith(userId, body, { 'x-request-hash': requestHash(body) });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: expect.stringContaining('required') } });
  });
  test('a 201-character key: 400; 200 characters are accepted', async () => {
    const { userId, repoId } = await h.newTenant();
    const body = { repoId, prompt: 'p' };
    expect((await h.start(userId, body, 'k'.repeat(201))).status).toBe(400);
    expect((await h.start(userId, body, 'k'.repeat(200))).status).toBe(202);
  });
});

describe('X-Request-Hash (the canonical body hash) is required and must match the body', () => {
  test('missing: 400', async () => {
    const { userId, repoId } = await h.newTenant();
    const answer = await startWith(userId, { repoId, prompt: 'p' }, { 'idempotency-key': 'k1' });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: expect.stringContaining('X-Request-Hash') } });
  });
  test('another body’s hash: 400, and no run', async () => {
    const { userId, repoId } = await h.newTenant();
    const answer = await startWith(userId, { repoId, prompt: 'p' }, { 'idempotency-key': 'k1', 'x-request-hash': requestHash({ repoId, prompt: 'q' }) });
    expect(answer.status).toBe(400);
    expect(await h.db.collection('runs').countDocuments({ userId })).toBe(0);
  });
});

describe('the body is validated like the contract’s: 400 BAD_REQUEST naming the field', () => {
  test.each([
    ['missing repoId', { prompt: 'p' }, 'repoId'],
    ['missing prompt', { repoId: 'REPO' }, 'prompt'],
    ['empty prompt', { repoId: 'REPO', prompt: '' }, 'prompt'],
    ['a blank prompt', { repoId: 'REPO', prompt: '   ' }, 'prompt'],
    ['a prompt over 100,000 characters', { repoId: 'REPO', prompt: 'x'.repeat(100_001) }, 'prompt'],
    ['an invalid harness', { repoId: 'REPO', prompt: 'p', harness: 'gpt' }, 'harness'],
    ['an invalid base branch', { repoId: 'REPO', prompt: 'p', baseBranch: 'bad..name' }, 'baseBranch'],
    ['an invalid working branch', { repoId: 'REPO', prompt: 'p', workingBranch: 'has space' }, 'workingBranch'],
    ['a working branch equal to the base', { repoId: 'REPO', prompt: 'p', baseBranch: 'dev', workingBranch: 'dev' }, 'workingBranch'],
    ['createBranch not a boolean', { repoId: 'REPO', prompt: 'p', createBranch: 'yes' }, 'createBranch'],
    ['rootDirectory escaping the repository', { repoId: 'REPO', prompt: 'p', rootDirectory: '../etc' }, 'rootDirectory'],
    ['model not a string', { repoId: 'REPO', prompt: 'p', model: 5 }, 'model'],
    ['an empty model', { repoId: 'REPO', prompt: 'p', model: '' }, 'model'],
    ['a model over 200 characters', { repoId: 'REPO', prompt: 'p', model: 'm'.repeat(201) }, 'model'],
    ['a null model', { repoId: 'REPO', prompt: 'p', model: null }, 'model'],
  ])('%s', async (_name, template, field) => {
    const { userId, repoId } = await h.newTenant();
    const body = JSON.parse(JSON.stringify(template).replace('"REPO"', JSON.stringify(repoId))) as Record<string, unknown>;
    const answer = await h.start(userId, body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: expect.stringContaining(field) } });
    expect(await h.db.collection('runs').countDocuments({ userId })).toBe(0);
  });

  test('a refused request does not use up its key: the corrected body with the same key starts a run', async () => {
    const { userId, repoId } = await h.newTenant();
    expect((await h.start(userId, { repoId, prompt: 'p', harness: 'gpt' }, 'fix-me')).status).toBe(400);
    const answer = await h.start(userId, { repoId, prompt: 'p' }, 'fix-me');
    expect(answer.status).toBe(202);
    expect(answer.data.replayed).toBe(false);
  });
});

describe('repoId must be a repository of the caller: else 404 NOT_FOUND', () => {
  test('an unknown repository', async () => {
    const { userId } = await h.newTenant();
    const answer = await h.start(userId, { repoId: 'no-such-repo', prompt: 'p' });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'Repository not found' } });
  });
  test('another user’s repository', async () => {
    const owner = await h.newTenant();
    const other = await h.newTenant();
    const answer = await h.start(other.userId, { repoId: owner.repoId, prompt: 'p' });
    expect(answer.status).toBe(404);
    expect(await h.db.collection('runs').countDocuments({ userId: other.userId })).toBe(0);
  });
});

describe('same key and a different body: 409 IDEMPOTENCY_CONFLICT', () => {
  test('the first run stays as it was; no second run', async () => {
    const { userId, repoId } = await h.newTenant();
    const first = (await h.start(userId, { repoId, prompt: 'one' }, 'conflict-key')).data;
    const second = await h.start(userId, { repoId, prompt: 'two' }, 'conflict-key');
    expect(second.status).toBe(409);
    expect(second.body).toEqual({ ok: false, error: { code: 'IDEMPOTENCY_CONFLICT', message: expect.any(String) } });
    expect(await h.db.collection('runs').countDocuments({ userId })).toBe(1);
    expect((await h.getRun(userId, first.runId)).status).toBe('pending');
  });
  test('racing requests of one key with two bodies: one run, the other body refused', async () => {
    const { userId, repoId } = await h.newTenant();
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => h.start(userId, { repoId, prompt: i % 2 === 0 ? 'even' : 'odd' }, 'mixed-key')));
    const accepted = answers.filter((a) => a.status === 202);
    const refused = answers.filter((a) => a.status === 409);
    expect(accepted.length + refused.length).toBe(10);
    expect(new Set(accepted.map((a) => a.data.runId)).size).toBe(1);
    expect(accepted.filter((a) => !a.data.replayed)).toHaveLength(1);
    expect(refused.length).toBe(5);
    expect(await h.db.collection('runs').countDocuments({ userId })).toBe(1);
  });
});
