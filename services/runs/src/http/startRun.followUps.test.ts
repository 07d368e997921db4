import type { StartRunAnswer } from '@ars/contract';
import type { Answer } from '@ars/testenv';
import type { Run } from '../domain/runView.js';
import { startRunsHarness, type RunsHarness } from '../testing/runsHarness.js';

// Issue 16, follow-ups: conversationId and workspaceSessionId (client-chosen, per user). The tests
// play sandboxes: a run stays live until they publish its runs.finished.
let h: RunsHarness;
beforeAll(async () => {
  h = await startRunsHarness();
});
afterAll(async () => {
  await h.stop();
});

async function untilStatus(userId: string, runId: string, status: Run['status']): Promise<Run> {
  return h.waitFor(`run ${runId} ${status}`, async () => {
    const run = await h.getRun(userId, runId);
    return run.status === status ? run : undefined;
  });
}

function expectConflict(answer: Answer<unknown>, message: string): void {
  expect(answer.status).toBe(409);
  expect(answer.body).toEqual({ ok: false, error: { code: 'CONFLICT', message } });
}

const liveHeld = (what: string, id: string, runId: string) => `${what} "${id}" has a live run (${runId}): wait until it ends or cancel it`;

describe('one live run at a time per conversation and per workspace session: a second one is 409 CONFLICT naming the run that holds it', () => {
  test('conversation: the second start is refused with the holder named, and makes no run', async () => {
    const { userId, repoId } = await h.newTenant();
    const first = await h.start(userId, { repoId, prompt: 'one', conversationId: 'c1' });
    expect(first.status).toBe(202);
    const second = await h.start(userId, { repoId, prompt: 'two', conversationId: 'c1' });
    expectConflict(second, liveHeld('conversation', 'c1', first.data.runId));
    expect(await h.db.collection('runs').countDocuments({ userId })).toBe(1);
  });

  test('workspace session: the same, also when the conversation differs', async () => {
    const { userId, repoId } = await h.newTenant();
    const first = await h.start(userId, { repoId, prompt: 'one', conversationId: 'c1', workspaceSessionId: 'w1' });
    expect(first.status).toBe(202);
    const second = await h.start(userId, { repoId, prompt: 'two', conversationId: 'c2', workspaceSessionId: 'w1' });
    expectConflict(second, liveHeld('workspace session', 'w1', first.data.runId));
    // c2 was not taken by the refused start.
    expect((await h.start(userId, { repoId, prompt: 'three', conversationId: 'c2' })).status).toBe(202);
  });

  test('runs without these ids, and with other ids, are not limited', async () => {
    const { userId, repoId } = await h.newTenant();
    for (const body of [{}, {}, { conversationId: 'c1' }, { conversationId: 'c2' }, { workspaceSessionId: 'w1' }, { workspaceSessionId: 'w2' }]) {
      expect((await h.start(userId, { repoId, prompt: 'p', ...body })).status).toBe(202);
    }
  });
});

describe('after the live run ends (success, failed, cancelled) the next run of the conversation or workspace session is accepted', () => {
  test.each([
    ['success', { status: 'success', error: null, failure: null, eventCount: 0 }],
    ['failed', { status: 'failed', error: 'the harness crashed', failure: 'harness_crash', eventCount: 0 }],
  ] as const)('ended %s by its sandbox', async (status, finish) => {
    const { userId, repoId } = await h.newTenant();
    const body = { repoId, prompt: 'p', conversationId: 'c1', workspaceSessionId: 'w1' };
    const first = await h.start(userId, body);
    expect((await h.start(userId, body)).status).toBe(409);
    await h.finish(first.data.runId, finish);
    await untilStatus(userId, first.data.runId, status);
    const next = await h.start(userId, body);
    expect(next.status).toBe(202);
    expect(next.data).toMatchObject({ replayed: false, status: 'pending' });
    expect(next.data.runId).not.toBe(first.data.runId);
  });

  test('cancelled through the cancel route', async () => {
    const { userId, repoId } = await h.newTenant();
    const body = { repoId, prompt: 'p', conversationId: 'c1', workspaceSessionId: 'w1' };
    const first = await h.start(userId, body);
    const cancel = await h.call<{ status: string }>('POST', `/internal/users/${userId}/runs/${first.data.runId}/cancel`, {});
    expect(cancel.data.status).toBe('cancellation_requested');
    // Live until sandboxes acknowledges: still held.
    expectConflict(await h.start(userId, body), liveHeld('conversation', 'c1', first.data.runId));
    await h.finish(first.data.runId, { status: 'cancelled', error: null, failure: null, eventCount: 0 });
    await untilStatus(userId, first.data.runId, 'cancelled');
    expect((await h.start(userId, body)).status).toBe(202);
  });

  test('a start refused while the conversation was live, retried with the same key and body after the end, makes its run', async () => {
    const { userId, repoId } = await h.newTenant();
    const first = await h.start(userId, { repoId, prompt: 'one', conversationId: 'c1' });
    const refused = await h.start(userId, { repoId, prompt: 'two', conversationId: 'c1' }, 'retry-me');
    expect(refused.status).toBe(409);
    // Retried while the conversation is still live: refused again (the claimed key made no run).
    expect((await h.start(userId, { repoId, prompt: 'two', conversationId: 'c1' }, 'retry-me')).status).toBe(409);
    await h.finish(first.data.runId, { status: 'success', error: null, failure: null, eventCount: 0 });
    await untilStatus(userId, first.data.runId, 'success');
    const retried = await h.start(userId, { repoId, prompt: 'two', conversationId: 'c1' }, 'retry-me');
    expect(retried.status).toBe(202);
    expect(retried.data.replayed).toBe(false);
    const replay = await h.start(userId, { repoId, prompt: 'two', conversationId: 'c1' }, 'retry-me');
    expect(replay.data).toMatchObject({ runId: retried.data.runId, replayed: true });
  });
});

describe('10 concurrent starts naming one conversation (or workspace session) make exactly one run', () => {
  test.each([
    ['conversation', { conversationId: 'c-race' }],
    ['workspace session', { workspaceSessionId: 'w-race' }],
  ] as const)('%s: one 202, nine 409 naming it', async (what, ids) => {
    const { userId, repoId } = await h.newTenant();
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => h.start(userId, { repoId, prompt: `attempt ${i}`, ...ids })));
    const accepted = answers.filter((a) => a.status === 202);
    expect(accepted).toHaveLength(1);
    const runId = accepted[0]?.data.runId ?? '';
    const refused = answers.filter((a) => a.status === 409);
    expect(refused).toHaveLength(9);
    const id = Object.values(ids)[0] ?? '';
    for (const answer of refused) expectConflict(answer, liveHeld(what, id, runId));
    expect(await h.db.collection('runs').countDocuments({ userId })).toBe(1);
  });
});

describe('an idempotent replay of the live run still replays (202, replayed: true)', () => {
  test('the same key and body while the run is live', async () => {
    const { userId, repoId } = await h.newTenant();
    const body = { repoId, prompt: 'p', conversationId: 'c1', workspaceSessionId: 'w1' };
    const first = await h.start(userId, body, 'k1');
    const replay = await h.start(userId, body, 'k1');
    expect(replay.status).toBe(202);
    expect(replay.data).toEqual({ ...first.data, replayed: true });
  });

  test('10 racing requests of one key naming a conversation: one run, every answer 202 with it', async () => {
    const { userId, repoId } = await h.newTenant();
    const body = { repoId, prompt: 'p', conversationId: 'c1', workspaceSessionId: 'w1' };
    const answers: Answer<StartRunAnswer>[] = await Promise.all(Array.from({ length: 10 }, () => h.start(userId, body, 'same-key')));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));
    expect(new Set(answers.map((a) => a.data.runId)).size).toBe(1);
    expect(answers.filter((a) => !a.data.replayed)).toHaveLength(1);
    expect(await h.db.collection('runs').countDocuments({ userId })).toBe(1);
  });
});

describe('a conversation belongs to one repository and one harness, a workspace session to one repository: another is 409 CONFLICT saying so', () => {
  test('a conversation named with another repository (its first run ended)', async () => {
    const { userId, repoIds } = await h.newTenant();
    const [repoX = '', repoY = ''] = repoIds;
    const first = await h.start(userId, { repoId: repoX, prompt: 'p', conversationId: 'c1' });
    await h.finish(first.data.runId, { status: 'success', error: null, failure: null, eventCount: 0 });
    await untilStatus(userId, first.data.runId, 'success');
    expectConflict(
      await h.start(userId, { repoId: repoY, prompt: 'p', conversationId: 'c1' }),
      `conversation "c1" belongs to repository ${repoX} with harness codex; start a new conversation for ${repoY}`,
    );
    expect(await h.db.collection('runs').countDocuments({ userId })).toBe(1);
  });

  test('a conversation named with another harness', async () => {
    const { userId, repoId } = await h.newTenant();
    const first = await h.start(userId, { repoId, prompt: 'p', conversationId: 'c1' });
    await h.finish(first.data.runId, { status: 'success', error: null, failure: null, eventCount: 0 });
    await untilStatus(userId, first.data.runId, 'success');
    expectConflict(
      await h.start(userId, { repoId, prompt: 'p', conversationId: 'c1', harness: 'claude-code' }),
      `conversation "c1" belongs to repository ${repoId} with harness codex; start a new conversation for ${repoId} with harness claude-code`,
    );
    expect((await h.start(userId, { repoId, prompt: 'p', conversationId: 'c1', harness: 'codex' })).status).toBe(202);
  });

  test('a workspace session named with another repository; another harness is fine', async () => {
    const { userId, repoIds } = await h.newTenant();
    const [repoX = '', repoY = ''] = repoIds;
    const first = await h.start(userId, { repoId: repoX, prompt: 'p', workspaceSessionId: 'w1' });
    expectConflict(
      await h.start(userId, { repoId: repoY, prompt: 'p', workspaceSessionId: 'w1' }),
      `workspace session "w1" belongs to repository ${repoX}; start a new workspace session for ${repoY}`,
    );
    await h.finish(first.data.runId, { status: 'success', error: null, failure: null, eventCount: 0 });
    await untilStatus(userId, first.data.runId, 'success');
    expect((await h.start(userId, { repoId: repoX, prompt: 'p', workspaceSessionId: 'w1', harness: 'claude-code' })).status).toBe(202);
  });

  test('a start refused for its binding does not use up its key', async () => {
    const { userId, repoIds } = await h.newTenant();
    const [repoX = '', repoY = ''] = repoIds;
    await h.start(userId, { repoId: repoX, prompt: 'p', conversationId: 'c1' });
    expect((await h.start(userId, { repoId: repoY, prompt: 'p', conversationId: 'c1' }, 'k-fix')).status).toBe(409);
    const fixed = await h.start(userId, { repoId: repoY, prompt: 'p', conversationId: 'c2' }, 'k-fix');
    expect(fixed.status).toBe(202);
    expect(fixed.data.replayed).toBe(false);
  });
});

describe("another user's runs with the same conversation and workspace session ids are unrelated", () => {
  test('both users hold a live run of "c1"/"w1", each on their own repository', async () => {
    const alice = await h.newTenant();
    const bob = await h.newTenant();
    const ids = { conversationId: 'c1', workspaceSessionId: 'w1' };
    expect((await h.start(alice.userId, { repoId: alice.repoId, prompt: 'p', ...ids })).status).toBe(202);
    expect((await h.start(bob.userId, { repoId: bob.repoId, prompt: 'p', harness: 'claude-code', ...ids })).status).toBe(202);
  });
});

describe('conversationId and workspaceSessionId, when given, are 1–200 characters, not blank: else 400 BAD_REQUEST naming the field', () => {
  test.each([
    ['a 201-character conversationId', { conversationId: 'c'.repeat(201) }, 'conversationId must be at most 200 characters'],
    ['a 201-character workspaceSessionId', { workspaceSessionId: 'w'.repeat(201) }, 'workspaceSessionId must be at most 200 characters'],
    ['an empty conversationId', { conversationId: '' }, 'conversationId must not be empty'],
    ['a blank workspaceSessionId', { workspaceSessionId: '   ' }, 'workspaceSessionId must not be empty'],
  ])('%s', async (_name, ids, message) => {
    const { userId, repoId } = await h.newTenant();
    const answer = await h.start(userId, { repoId, prompt: 'p', ...ids });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: expect.stringContaining(message) } });
    expect(await h.db.collection('runs').countDocuments({ userId })).toBe(0);
  });

  test('200 characters (an emoji counting one) and null are accepted', async () => {
    const { userId, repoId } = await h.newTenant();
    expect((await h.start(userId, { repoId, prompt: 'p', conversationId: '😀'.repeat(200), workspaceSessionId: 'w'.repeat(200) })).status).toBe(202);
    expect((await h.start(userId, { repoId, prompt: 'p', conversationId: null, workspaceSessionId: null })).status).toBe(202);
  });
});
