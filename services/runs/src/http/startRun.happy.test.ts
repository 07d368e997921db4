import { RUN_FIELDS, type StartRunAnswer } from '@ars/contract';
import { requestHash } from '@ars/idempotency';
import { startRunsHarness, type RunsHarness } from '../testing/runsHarness.js';

let h: RunsHarness;
beforeAll(async () => {
  h = await startRunsHarness();
  await h.watchRequested();
});
afterAll(async () => {
  await h.stop();
});

describe('POST /runs: a valid request creates a pending run, HTTP 202, replayed false', () => {
  test('the run has the contract’s Run fields exactly, plus replayed', async () => {
    const { userId, repoId } = await h.newTenant();
    const answer = await h.start(userId, { repoId, prompt: 'fix the bug' });
    expect(answer.status).toBe(202);
    const run = answer.data;
    expect(Object.keys(run).sort()).toEqual([...RUN_FIELDS, 'replayed'].sort());
    expect(run).toEqual({
      runId: expect.any(String),
      aiCallId: expect.any(String),
      sandboxRecordId: null,
      sandboxId: null,
      repoId,
      harness: 'codex',
      status: 'pending',
      branch: { base: 'main', working: 'main', createBranch: false },
      rootDirectory: null,
      eventsUrl: `/api/v1/svc/runs/${run.runId}/events`,
      cancelUrl: `/api/v1/svc/runs/${run.runId}/cancel`,
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      updatedAt: run.createdAt,
      error: null,
      runtime: { provider: null, runId: null },
      replayed: false,
    });
    expect(run.aiCallId).not.toBe(run.runId);
    const stored = await h.getRun(userId, run.runId);
    const { replayed: _replayed, ...withoutReplayed } = run;
    expect(stored).toEqual(withoutReplayed);
  });

  test('the body’s choices are kept: harness, branches, rootDirectory', async () => {
    const { userId, repoId } = await h.newTenant();
    const run = (
      await h.start(userId, {
        repoId,
        prompt: 'p',
        harness: 'claude-code',
        baseBranch: 'develop',
        workingBranch: 'feature/x',
        rootDirectory: 'packages/api/',
        mode: 'plan',
      })
    ).data;
    expect(run).toMatchObject({
      harness: 'claude-code',
      branch: { base: 'develop', working: 'feature/x', createBranch: false },
      rootDirectory: 'packages/api',
    });
  });

  test('createBranch without a working branch generates a deterministic name from the key and request', async () => {
    const { userId, repoId } = await h.newTenant();
    const body = { repoId, prompt: 'p', createBranch: true };
    const first = (await h.start(userId, body, 'branch-key')).data;
    expect(first.branch).toEqual({ base: 'main', working: expect.stringMatching(/^agent\/run-[0-9a-f]{12}$/), createBranch: true });
    const again = (await h.start(userId, body, 'branch-key')).data;
    expect(again.branch).toEqual(first.branch);
    const other = (await h.start(userId, body, 'another-key')).data;
    expect(other.branch.working).not.toBe(first.branch.working);
  });
});

describe('a new run and its runs.requested message are written in one step and reach sandboxes', () => {
  test('runs.requested carries the run, the harness limit and the start deadline', async () => {
    const { userId, repoId } = await h.newTenant();
    const run = (await h.start(userId, { repoId, prompt: 'write tests', baseBranch: 'main', workingBranch: 'tests', mode: 'fast' })).data;
    const requested = await h.watchRequested();
    const message = await h.waitFor('runs.requested', async () => requested.get(run.runId));
    expect(message.id).toBe(`${run.runId}:requested`);
    expect(message.type).toBe('run.requested');
    expect(message.data).toEqual({
      runId: run.runId,
      userId,
      repoId,
      harness: 'codex',
      prompt: 'write tests',
      branch: { base: 'main', working: 'tests', createBranch: false },
      rootDirectory: null,
      model: null,
      agentId: null,
      mode: 'fast',
      conversationId: null,
      workspaceSessionId: null,
      timeoutMs: 1_800_000,
      startBy: new Date(Date.parse(run.createdAt) + 120_000).toISOString(),
    });
    // Relayed: nothing is left pending in the run's document.
    const doc = await h.waitFor('the outbox drained', async () => {
      const found = await h.db.collection('runs').findOne({ _id: run.runId as unknown as never });
      return found && (found._outbox as unknown[]).length === 0 ? found : undefined;
    });
    expect(doc.status).toBe('pending');
  });
});

describe('the internal model: kept on the run, sent in runs.requested to the harness, shown only in the internal view', () => {
  test('a start with model answers the contract’s Run; runs.requested and the internal view carry the model', async () => {
    const { userId, repoId } = await h.newTenant();
    const answer = await h.start(userId, { repoId, prompt: 'with a model', model: 'gpt-5-codex' });
    expect(answer.status).toBe(202);
    expect(Object.keys(answer.data).sort()).toEqual([...RUN_FIELDS, 'replayed'].sort());
    const { runId } = answer.data;
    const requested = await h.watchRequested();
    const message = await h.waitFor('runs.requested', async () => requested.get(runId));
    expect(message.data.model).toBe('gpt-5-codex');
    expect(Object.keys(await h.getRun(userId, runId)).sort()).toEqual(RUN_FIELDS);
    const { replayed: _replayed, ...run } = answer.data;
    expect(await h.internalRun(userId, runId)).toEqual({ ...run, model: 'gpt-5-codex', usage: null, lastMessage: null });
  });

  test('without model the run’s model is null (the harness’s default), in runs.requested and the internal view', async () => {
    const { userId, repoId } = await h.newTenant();
    const { runId } = (await h.start(userId, { repoId, prompt: 'no model' })).data;
    const requested = await h.watchRequested();
    expect((await h.waitFor('runs.requested', async () => requested.get(runId))).data.model).toBeNull();
    expect(await h.internalRun(userId, runId)).toMatchObject({ runId, model: null, usage: null });
  });

  test('the model is part of the body: the same key with another model is 409 IDEMPOTENCY_CONFLICT', async () => {
    const { userId, repoId } = await h.newTenant();
    expect((await h.start(userId, { repoId, prompt: 'p', model: 'm-1' }, 'model-key')).status).toBe(202);
    const other = await h.start(userId, { repoId, prompt: 'p', model: 'm-2' }, 'model-key');
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ ok: false, error: { code: 'IDEMPOTENCY_CONFLICT' } });
  });
});

describe('same key and same body: the original run is returned with replayed true; no new run', () => {
  test('a replay answers the stored run (same runId, replayed true); key order and whitespace do not matter', async () => {
    const { userId, repoId } = await h.newTenant();
    const first = (await h.start(userId, { repoId, prompt: 'once', harness: 'codex' }, 'replay-key')).data;
    const second = await h.start(userId, { harness: 'codex', prompt: 'once', repoId }, 'replay-key');
    expect(second.status).toBe(202);
    expect(second.data).toEqual({ ...first, replayed: true });
    expect(await h.db.collection('runs').countDocuments({ userId })).toBe(1);
  });

  test('a replay returns the run as it is now, unchanged by the replay', async () => {
    const { userId, repoId } = await h.newTenant();
    const first = (await h.start(userId, { repoId, prompt: 'later' }, 'k')).data;
    await h.allocate(first.runId);
    await h.waitFor('allocation', async () => (await h.getRun(userId, first.runId)).sandboxRecordId !== null);
    const replay = (await h.start(userId, { repoId, prompt: 'later' }, 'k')).data;
    expect(replay.runId).toBe(first.runId);
    expect(replay.replayed).toBe(true);
    expect(replay.sandboxRecordId).toEqual(expect.any(String));
  });

  test('20 identical requests racing create exactly one run; every answer names it', async () => {
    const { userId, repoId } = await h.newTenant();
    const body = { repoId, prompt: 'race', createBranch: true };
    const answers = await Promise.all(Array.from({ length: 20 }, () => h.start(userId, body, 'racing-key')));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(202));
    const runIds = new Set(answers.map((a) => a.data.runId));
    expect(runIds.size).toBe(1);
    expect(answers.filter((a) => !a.data.replayed)).toHaveLength(1);
    expect(await h.db.collection('runs').countDocuments({ userId })).toBe(1);
    expect(await h.db.collection('run_idempotency').countDocuments({ userId })).toBe(1);
  });

  test('a start cut short after it claimed its key (a crash) is completed by the next request with that key and body', async () => {
    const { userId, repoId } = await h.newTenant();
    const body = { repoId, prompt: 'interrupted' };
    await h.db
      .collection('run_idempotency')
      .insertOne({ userId, key: 'cut-short', bodyHash: requestHash(body), runId: 'run-of-the-crashed-request', createdAt: new Date() });
    const answer = await h.start(userId, body, 'cut-short');
    expect(answer.status).toBe(202);
    expect(answer.data).toMatchObject({ runId: 'run-of-the-crashed-request', status: 'pending', replayed: false });
    expect((await h.start(userId, body, 'cut-short')).data).toMatchObject({ runId: 'run-of-the-crashed-request', replayed: true });
  });

  test('the same key of two users makes two runs (keys are scoped per user)', async () => {
    const a = await h.newTenant();
    const b = await h.newTenant();
    const runA = (await h.start(a.userId, { repoId: a.repoId, prompt: 'p' }, 'shared-key')).data;
    const runB = (await h.start(b.userId, { repoId: b.repoId, prompt: 'p' }, 'shared-key')).data;
    expect(runB.runId).not.toBe(runA.runId);
    expect(runB.replayed).toBe(false);
  });
});

describe('X-Replay-Only: the replay of a key already used, and nothing made otherwise (the gateway asks it when the budget is full)', () => {
  const replayOnly = (userId: string, body: Record<string, unknown>, key: string) =>
    h.call<StartRunAnswer>('POST', `/internal/users/${encodeURIComponent(userId)}/runs`, body, {
      'x-internal-token': h.token,
      'idempotency-key': key,
      'x-request-hash': requestHash(body),
      'x-replay-only': 'true',
    });

  test('a key that made its run: 202, the run, replayed true; no second run', async () => {
    const { userId, repoId } = await h.newTenant();
    const first = (await h.start(userId, { repoId, prompt: 'once' }, 'known')).data;
    const replay = await replayOnly(userId, { repoId, prompt: 'once' }, 'known');
    expect(replay.status).toBe(202);
    expect(replay.data).toEqual({ ...first, replayed: true });
    expect(await h.db.collection('runs').countDocuments({ userId })).toBe(1);
  });

  test('a key that made no run: 204 with no body, and still no run', async () => {
    const { userId, repoId } = await h.newTenant();
    const answer = await replayOnly(userId, { repoId, prompt: 'never' }, 'unknown');
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
    expect(await h.db.collection('runs').countDocuments({ userId })).toBe(0);
    expect(await h.db.collection('run_idempotency').countDocuments({ userId })).toBe(0);
    expect((await h.start(userId, { repoId, prompt: 'never' }, 'unknown')).data.replayed).toBe(false);
  });

  test('a key used with another body: 409 IDEMPOTENCY_CONFLICT', async () => {
    const { userId, repoId } = await h.newTenant();
    await h.start(userId, { repoId, prompt: 'a' }, 'used');
    const answer = await replayOnly(userId, { repoId, prompt: 'b' }, 'used');
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({ ok: false, error: { code: 'IDEMPOTENCY_CONFLICT' } });
  });
});
