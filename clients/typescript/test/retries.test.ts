// Retries (README, "Retries"): 429 and 503 honour Retry-After within retry.maxAttempts and
// retry.maxDelayMs; a keyed POST sends its one Idempotency-Key on every attempt; a network failure is
// retried only where repeating the request cannot do the work twice.
import { ArsApiError, type ArsClientOptions } from '../src/index.js';
import { clientOf, fail, ok, rejection, runOf, standInPerTest } from './standIn.js';

const current = standInPerTest();

const client = (options: Partial<ArsClientOptions> = {}) => clientOf(current(), options);

describe('429 and 503 are retried after Retry-After, the same Idempotency-Key on every attempt', () => {
  test('runs.start answered 429 (Retry-After: 1), then 503 (Retry-After: 1), then 202: three attempts, one key, the run', async () => {
    current().answer((_, res, n) => {
      if (n === 1) return fail(res, 429, 'RATE_LIMITED', 'Rate limit exceeded', { 'Retry-After': '1' });
      if (n === 2) return fail(res, 503, 'SERVICE_UNAVAILABLE', 'Backend down', { 'Retry-After': '1' });
      ok(res, 202, { ...runOf('run-1', 'queued'), replayed: false });
    });
    const started = await client().runs.start({ repoId: 'repo-1', prompt: '@say hello' });
    expect(started.runId).toBe('run-1');
    expect(current().received).toHaveLength(3);
    const keys = current().received.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
    expect(new Set(current().received.map((r) => r.body))).toEqual(new Set([JSON.stringify({ repoId: 'repo-1', prompt: '@say hello' })]));
  });

  test('automations.trigger answered 503 then 202: two attempts carrying the key the caller gave', async () => {
    current().answer((_, res, n) =>
      n === 1
        ? fail(res, 503, 'SERVICE_UNAVAILABLE', 'Backend down', { 'Retry-After': '1' })
        : ok(res, 202, { run: { automationId: 'a1', jobRunId: 'j1', outcome: 'started', reason: null, started: true, status: 'running', runtime: null } }),
    );
    const answer = await client().automations.trigger('a1', { repoId: 'repo-1' }, { idempotencyKey: 'my-key' });
    expect(answer.run.jobRunId).toBe('j1');
    expect(current().received.map((r) => r.headers['idempotency-key'])).toEqual(['my-key', 'my-key']);
  });

  test('Retry-After as an HTTP date is honoured too', async () => {
    current().answer((_, res, n) =>
      n === 1
        ? fail(res, 503, 'SERVICE_UNAVAILABLE', 'Backend down', { 'Retry-After': new Date(Date.now() + 1000).toUTCString() })
        : ok(res, 200, { repos: [] }),
    );
    expect(await client().repos.list()).toEqual({ repos: [] });
    expect(current().received).toHaveLength(2);
  });
});

describe('attempts are bounded by retry.maxAttempts (default 3), then the ArsApiError is thrown', () => {
  test('503 on every attempt: three attempts, then SERVICE_UNAVAILABLE with status, request id and retryAfterSeconds', async () => {
    current().answer((_, res) => fail(res, 503, 'SERVICE_UNAVAILABLE', 'Backend down', { 'Retry-After': '1' }));
    const error = await rejection(client().runs.get('run-1'));
    expect(error).toBeInstanceOf(ArsApiError);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, message: 'Backend down', requestId: 'req-3', retryAfterSeconds: 1 });
    expect(current().received).toHaveLength(3);
  });

  test('retry.maxAttempts: 1 makes one attempt', async () => {
    current().answer((_, res) => fail(res, 429, 'RATE_LIMITED', 'Rate limit exceeded', { 'Retry-After': '1' }));
    const error = await rejection(client({ retry: { maxAttempts: 1 } }).repos.list());
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429, requestId: 'req-1', retryAfterSeconds: 1 });
    expect(current().received).toHaveLength(1);
  });
});

describe('a Retry-After above retry.maxDelayMs (default 60 000) is not waited: the error is thrown with retryAfterSeconds', () => {
  test('Retry-After: 120 with the defaults: one attempt, RATE_LIMITED, retryAfterSeconds 120', async () => {
    current().answer((_, res) => fail(res, 429, 'RATE_LIMITED', 'Rate limit exceeded', { 'Retry-After': '120' }));
    const error = await rejection(client().runs.start({ repoId: 'repo-1', prompt: 'x' }));
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429, retryAfterSeconds: 120 });
    expect(current().received).toHaveLength(1);
  });

  test('Retry-After: 1 with retry.maxDelayMs 500: one attempt', async () => {
    current().answer((_, res) => fail(res, 503, 'SERVICE_UNAVAILABLE', 'Backend down', { 'Retry-After': '1' }));
    const error = await rejection(client({ retry: { maxDelayMs: 500 } }).models.list());
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 1 });
    expect(current().received).toHaveLength(1);
  });
});

describe('other failures are not retried', () => {
  test('a 500 is thrown at once', async () => {
    current().answer((_, res) => fail(res, 500, 'INTERNAL_ERROR', 'Boom'));
    expect(await rejection(client().agents.list())).toMatchObject({ code: 'INTERNAL_ERROR', status: 500, requestId: 'req-1' });
    expect(current().received).toHaveLength(1);
  });
});

describe('a network failure is retried only for a GET or an idempotency-keyed POST', () => {
  const dropFirst = () =>
    current().answer((_, res, n) => {
      if (n === 1) {
        res.socket?.destroy();
        return;
      }
      ok(res, 200, { run: runOf('run-1', 'running'), status: 'cancellation_requested', alreadyTerminal: false });
    });

  test('a GET whose connection dropped is sent again', async () => {
    dropFirst();
    expect((await client().runs.get('run-1')).run.runId).toBe('run-1');
    expect(current().received).toHaveLength(2);
  });

  test('a POST without a key whose connection dropped is CONNECTION_FAILED (status 0) after one attempt', async () => {
    dropFirst();
    const error = await rejection(client().runs.cancel('run-1'));
    expect(error).toMatchObject({ code: 'CONNECTION_FAILED', status: 0, requestId: null });
    expect(current().received).toHaveLength(1);
  });

  test('a keyed POST whose connection dropped is sent again with the same key', async () => {
    dropFirst();
    await client().runs.start({ repoId: 'repo-1', prompt: 'x' }, { idempotencyKey: 'k-1' });
    expect(current().received.map((r) => r.headers['idempotency-key'])).toEqual(['k-1', 'k-1']);
  });
});
