import type { InternalStartRunBody, StartRunBody } from '@ars/contract';
import { AppError } from '@ars/errors';
import { createHttpClient, type HttpClient } from '@ars/http-client';
import { requestHash } from '@ars/idempotency';
import { createLogger } from '@ars/logger';
import { createRunsClient, type RunsClient, type StartRunIdentity } from './client.js';
import { startRunsHarness, type RunsHarness, type Tenant } from './testing/runsHarness.js';

let harness: RunsHarness;
let http: HttpClient;
let runs: RunsClient;
let tenant: Tenant;
beforeAll(async () => {
  harness = await startRunsHarness();
  http = createHttpClient({
    baseUrl: harness.url,
    caller: 'gateway',
    internalToken: harness.token,
    logger: createLogger({ service: 'runs-client-test', level: 'silent' }),
    peer: 'runs',
  });
  runs = createRunsClient(http);
  tenant = await harness.newTenant();
});
afterAll(async () => {
  await http?.close();
  await harness?.stop();
});

const identityOf = (key: string, body: InternalStartRunBody): StartRunIdentity => ({ idempotencyKey: key, requestHash: requestHash(body) });

describe('the runs client calls the real start route and answers its typed shape', () => {
  test('startRun makes a run, the same key replays it; replayRun makes nothing for a new key', async () => {
    const body: StartRunBody = { repoId: tenant.repoId, prompt: '@say hi' };
    const key = `client-${Date.now()}`;
    const first = await runs.startRun(tenant.userId, body, identityOf(key, body));
    expect(first).toMatchObject({ repoId: tenant.repoId, harness: 'codex', status: 'pending', replayed: false });
    expect(await runs.startRun(tenant.userId, body, identityOf(key, body))).toMatchObject({ runId: first.runId, replayed: true });
    expect(await runs.replayRun(tenant.userId, body, identityOf(key, body))).toMatchObject({ runId: first.runId, replayed: true });
    expect(await runs.replayRun(tenant.userId, body, identityOf(`${key}-unused`, body))).toBeUndefined();
  });
});

describe('the runs client starts a run with the internal model and reads it back with getRun (model and usage)', () => {
  test('getRun answers the run with its model, usage null until the finish', async () => {
    const body: InternalStartRunBody = { repoId: tenant.repoId, prompt: '@model', model: 'claude-sonnet-4-5' };
    const started = await runs.startRun(tenant.userId, body, identityOf(`client-model-${Date.now()}`, body));
    const { replayed: _replayed, ...run } = started;
    expect(await runs.getRun(tenant.userId, started.runId)).toEqual({ ...run, model: 'claude-sonnet-4-5', usage: null, lastMessage: null });
  });

  test('another user’s run is AppError NOT_FOUND', async () => {
    const body: StartRunBody = { repoId: tenant.repoId, prompt: '@say mine' };
    const started = await runs.startRun(tenant.userId, body, identityOf(`client-owner-${Date.now()}`, body));
    const other = await harness.newTenant();
    const error = await runs.getRun(other.userId, started.runId).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });
});

describe('the runs client cancels a run: cancellation_requested while it lives, already_terminal once it ended', () => {
  test('cancelRun twice around the finish', async () => {
    const body: StartRunBody = { repoId: tenant.repoId, prompt: '@say cancel me' };
    const started = await runs.startRun(tenant.userId, body, identityOf(`client-cancel-${Date.now()}`, body));
    expect(await runs.cancelRun(tenant.userId, started.runId)).toMatchObject({
      status: 'cancellation_requested',
      alreadyTerminal: false,
      run: { runId: started.runId },
    });
    await harness.finish(started.runId, { status: 'cancelled', error: null, failure: null, eventCount: 0 });
    await harness.waitFor('cancelled', async () => (await harness.getRun(tenant.userId, started.runId)).status === 'cancelled');
    expect(await runs.cancelRun(tenant.userId, started.runId)).toMatchObject({
      status: 'already_terminal',
      alreadyTerminal: true,
      run: { status: 'cancelled' },
    });
  });
});

describe("the runs client maps an error answer to the one error type (AppError with runs' code)", () => {
  test('the same key with another body is AppError IDEMPOTENCY_CONFLICT', async () => {
    const key = `client-conflict-${Date.now()}`;
    const body: StartRunBody = { repoId: tenant.repoId, prompt: '@say one' };
    await runs.startRun(tenant.userId, body, identityOf(key, body));
    const other: StartRunBody = { repoId: tenant.repoId, prompt: '@say two' };
    const error = await runs.startRun(tenant.userId, other, identityOf(key, other)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT', status: 409 });
  });
});
