import { INTERNAL_START_RUN_BODY_SCHEMA, START_RUN_BODY_SCHEMA } from '@ars/contract';
import { validateBody } from '@ars/http-app';
import { startRunsHarness, type RunsHarness } from '../testing/runsHarness.js';

let h: RunsHarness;
beforeAll(async () => {
  h = await startRunsHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('tenancy: another user’s run is 404 NOT_FOUND, never 403, and nothing of it leaks', () => {
  test('GET run, GET events and cancel of another user’s run are 404; the run is untouched and sandboxes never asked', async () => {
    const owner = await h.newTenant();
    const intruder = await h.newTenant();
    const run = (await h.start(owner.userId, { repoId: owner.repoId, prompt: 'mine' })).data;
    await h.event(run.runId, 0, { message: 'private' });
    await h.waitFor('the event', async () => (await h.events(owner.userId, run.runId)).events.length === 1);
    const before = await h.getRun(owner.userId, run.runId);
    for (const [method, suffix] of [
      ['GET', ''],
      ['GET', '/events'],
      ['POST', '/cancel'],
    ] as const) {
      const answer = await h.call(method, `/internal/users/${intruder.userId}/runs/${run.runId}${suffix}`, method === 'POST' ? {} : undefined);
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'Run not found' } });
      expect(answer.text).not.toContain('private');
    }
    expect(await h.getRun(owner.userId, run.runId)).toEqual(before);
    expect(h.sandboxes.cancels.filter((c) => c.runId === run.runId)).toHaveLength(0);
  });

  test('a replay is per user: another user sending the owner’s key and body gets their own run (or 404 for the owner’s repo)', async () => {
    const owner = await h.newTenant();
    const intruder = await h.newTenant();
    const body = { repoId: owner.repoId, prompt: 'mine' };
    await h.start(owner.userId, body, 'owner-key');
    const answer = await h.start(intruder.userId, body, 'owner-key');
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'Repository not found' } });
  });
});

describe('no internal field leaks: answers carry the contract’s Run and RunEvent fields only', () => {
  test('no userId, key, hash, outbox, prompt or deadlines in any answer', async () => {
    const { userId, repoId } = await h.newTenant();
    const key = 'leak-check-key';
    const started = await h.start(userId, { repoId, prompt: 'a very particular prompt' }, key);
    await h.event(started.data.runId, 0);
    await h.waitFor('the event', async () => (await h.events(userId, started.data.runId)).events.length === 1);
    const texts = [
      started.text,
      (await h.call('GET', `/internal/users/${userId}/runs/${started.data.runId}`)).text,
      (await h.call('GET', `/internal/users/${userId}/runs/${started.data.runId}/events`)).text,
      (await h.call('POST', `/internal/users/${userId}/runs/${started.data.runId}/cancel`, {})).text,
    ];
    for (const text of texts) {
      for (const hidden of [userId, key, 'bodyHash', 'idempotencyKey', '_outbox', 'a very particular prompt', 'startBy', 'lostBy', 'nextSeq', '"_id"']) {
        expect(text).not.toContain(hidden);
      }
    }
  });
});

describe('model and usage are internal: the public body cannot set model, the public answer never shows either', () => {
  test('the public schema (the gateway’s) refuses model by name; the internal one accepts it; other fields pass as before', () => {
    const body = { repoId: 'r', prompt: 'p', model: 'gpt-5-codex' };
    expect(() => validateBody(START_RUN_BODY_SCHEMA)(body)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST', message: 'model is not allowed' }));
    expect(validateBody(INTERNAL_START_RUN_BODY_SCHEMA)(body)).toEqual(body);
    expect(validateBody(START_RUN_BODY_SCHEMA)({ repoId: 'r', prompt: 'p', somethingElse: 1 })).toEqual({ repoId: 'r', prompt: 'p', somethingElse: 1 });
  });

  test('GET answers model and usage only with X-Internal-View: true (the gateway forwards no caller header)', async () => {
    const { userId, repoId } = await h.newTenant();
    const { runId } = (await h.start(userId, { repoId, prompt: 'p', model: 'a-private-model-name' })).data;
    await h.finish(runId, { status: 'success', error: null, failure: null, eventCount: 0, usage: { inputTokens: 7, cachedInputTokens: 0, outputTokens: 3 } });
    await h.waitFor('success', async () => (await h.getRun(userId, runId)).status === 'success');
    const views: Record<string, string>[] = [{}, { 'x-internal-view': 'false' }, { 'x-internal-view': '1' }];
    for (const view of views) {
      const answer = await h.call<{ run: Record<string, unknown> }>('GET', `/internal/users/${userId}/runs/${runId}`, undefined, {
        'x-internal-token': h.token,
        ...view,
      });
      expect(answer.status).toBe(200);
      expect(answer.data.run).not.toHaveProperty('model');
      expect(answer.data.run).not.toHaveProperty('usage');
      expect(answer.text).not.toContain('a-private-model-name');
    }
    expect(await h.internalRun(userId, runId)).toMatchObject({
      model: 'a-private-model-name',
      usage: { inputTokens: 7, cachedInputTokens: 0, outputTokens: 3 },
    });
  });
});

describe('every route is internal: without the internal token, 401 UNAUTHORIZED', () => {
  test.each([
    ['POST', '/runs'],
    ['GET', '/runs/r'],
    ['GET', '/runs/r/events'],
    ['POST', '/runs/r/cancel'],
  ])('%s %s', async (method, path) => {
    const { userId } = await h.newTenant();
    for (const headers of [{}, { 'x-internal-token': 'not-the-token-at-all' }] as Record<string, string>[]) {
      const answer = await h.call(method, `/internal/users/${userId}${path}`, method === 'POST' ? {} : undefined, headers);
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
    }
  });
});
