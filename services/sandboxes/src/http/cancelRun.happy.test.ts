import { assertStandInsBuilt } from '../harness/testing.js';
import { createLogger } from '@ars/logger';
import { freePort } from '@ars/testenv';
import { startSandboxes } from '../sandboxes.js';
import { fastSession, isAlive, reportedHostPid, startSandboxesKit, type SandboxesKit } from '../testing/sandboxesKit.js';

let kit: SandboxesKit;
beforeAll(async () => {
  assertStandInsBuilt();
  kit = await startSandboxesKit();
  await kit.startService();
});
afterAll(async () => {
  await kit?.stop();
});

async function harnessPid(runId: string): Promise<number> {
  const shell = await kit.waitFor('the @shell event', () => kit.messages(runId).events.find((e) => e.eventType === 'tool_call'));
  return reportedHostPid(shell.payload.output);
}

describe('cancel during a run signals the live session: the harness is gone and the run ends cancelled', () => {
  test.each(['codex', 'claude-code'] as const)('%s: cancel during @sleep 30000 → signalled, cancelled, harness process gone', async (harness) => {
    const repo = await kit.newRepo();
    const request = await kit.requestRun(repo, '@shell echo $PPID $PWD\n@sleep 30000', { harness });
    const pid = await harnessPid(request.runId);
    expect(isAlive(pid)).toBe(true);
    const answer = await kit.cancel(request.runId, repo.userId);
    expect(answer).toEqual({ status: 202, body: { ok: true, data: { runId: request.runId, state: 'signalled' } } });
    const finished = await kit.waitFinished(request.runId, 15_000);
    expect(finished).toMatchObject({ status: 'cancelled', error: null, failure: null });
    await kit.waitFor('the harness process to exit', () => !isAlive(pid), 5_000);
    // Cancelling again: the session is over, nothing changes.
    expect((await kit.cancel(request.runId, repo.userId)).body).toEqual({ ok: true, data: { runId: request.runId, state: 'finished' } });
  });
});

describe('cancel before the request arrives is recorded: the request then starts nothing and the run ends cancelled', () => {
  test('not_started, then run.finished cancelled without a sandbox', async () => {
    const repo = await kit.newRepo();
    const runId = `run_early_${Date.now()}`;
    const answer = await kit.cancel(runId, repo.userId);
    expect(answer).toEqual({ status: 202, body: { ok: true, data: { runId, state: 'not_started' } } });
    expect((await kit.cancel(runId, repo.userId)).body).toEqual({ ok: true, data: { runId, state: 'not_started' } });
    await kit.requestRun(repo, '@say never', { runId });
    const finished = await kit.waitFinished(runId);
    expect(finished).toMatchObject({ status: 'cancelled', error: null, eventCount: 0 });
    expect(kit.messages(runId).allocated).toEqual([]);
    expect(kit.messages(runId).events).toEqual([]);
  });
});

describe('the cancel route is internal and scoped to the run’s user', () => {
  test('another user’s run is 404 NOT_FOUND; a missing userId 400; no token 401', async () => {
    const repo = await kit.newRepo();
    const request = await kit.requestRun(repo, '@say hi');
    await kit.waitFinished(request.runId);
    const other = await kit.cancel(request.runId, kit.catalog.newUser());
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    const url = `${kit.service!.url}/internal/runs/${request.runId}/cancel`;
    const noUser = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-internal-token': kit.token }, body: '{}' });
    expect(noUser.status).toBe(400);
    const noToken = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userId: repo.userId }) });
    expect(noToken.status).toBe(401);
  });
});

describe('a cancel that reaches another instance is recorded and the instance running the session aborts it', () => {
  test('cancel through instance B of a session instance A runs: signalled, then cancelled', async () => {
    const repo = await kit.newRepo();
    const request = await kit.requestRun(repo, '@shell echo $PPID $PWD\n@sleep 30000', { harness: 'codex' });
    const pid = await harnessPid(request.runId);
    const other = await startSandboxes({
      handleSignals: false,
      exit: () => undefined,
      logger: createLogger({ service: 'sandboxes-b', level: 'silent' }),
      consumerSession: fastSession,
      env: { PORT: String(await freePort()), ...kit.serviceEnv() },
    });
    try {
      const response = await fetch(`${other.url}/internal/runs/${request.runId}/cancel`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-internal-token': kit.token },
        body: JSON.stringify({ userId: repo.userId }),
      });
      expect(await response.json()).toEqual({ ok: true, data: { runId: request.runId, state: 'signalled' } });
      expect(await kit.waitFinished(request.runId, 15_000)).toMatchObject({ status: 'cancelled' });
      await kit.waitFor('the harness process to exit', () => !isAlive(pid), 5_000);
    } finally {
      await other.shutdown('test over');
    }
  }, 60_000);
});
