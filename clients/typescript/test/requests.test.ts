// What every call sends and how every answer is read (README, "Requests" and "Errors"): the URL
// under {baseUrl}/api/v1/svc, the headers, the success envelope's data, every failure an ArsApiError.
import { readFileSync } from 'node:fs';
import { TERMINAL_RUN_STATUSES } from '@ars/contract';
import { ArsApiError, exchangeLoginCode, type ArsClientOptions } from '../src/index.js';
import { TERMINAL_STATUSES } from '../src/runStatus.js';
import { CLIENT_VERSION } from '../src/version.js';
import { clientOf, fail, ok, rejection, runOf, standInPerTest } from './standIn.js';

const current = standInPerTest();

const client = (options: Partial<ArsClientOptions> = {}) => clientOf(current(), options);

describe('every request goes to {baseUrl}/api/v1/svc with the bearer, Accept, User-Agent, and Content-Type when it has a body', () => {
  test('a GET (baseUrl with a trailing slash): the path, the query as the contract names it, no Content-Type', async () => {
    current().answer((_, res) => ok(res, 200, { sandboxes: [] }));
    expect(await client({ baseUrl: `${current().baseUrl}/`, userAgent: 'ars-cli/0.1.0' }).sandboxes.list({ repoId: 'r/1', status: 'ready', limit: 5 })).toEqual(
      { sandboxes: [] },
    );
    const [request] = current().received;
    expect(request?.method).toBe('GET');
    expect(request?.path).toBe('/api/v1/svc/sandboxes');
    expect(Object.fromEntries(request?.query ?? [])).toEqual({ repo_id: 'r/1', status: 'ready', limit: '5' });
    expect(request?.headers.authorization).toBe('Bearer tok_test');
    expect(request?.headers.accept).toBe('application/json');
    expect(request?.headers['user-agent']).toMatch(new RegExp(`^ars-cli/0\\.1\\.0 ars-client-ts/${CLIENT_VERSION.replace(/\./g, '\\.')} node/`));
    expect(request?.headers['content-type']).toBeUndefined();
  });

  test('a POST with a body: JSON with Content-Type: application/json; path segments are encoded', async () => {
    current().answer((_, res) => ok(res, 200, { automation: { id: 'a/1' } }));
    await client().automations.setModel('a/1', { nodeId: 'n1', modelId: null });
    const [request] = current().received;
    expect(request?.method).toBe('PUT');
    expect(request?.path).toBe('/api/v1/svc/automations/a%2F1/model');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request?.body ?? '')).toEqual({ nodeId: 'n1', modelId: null });
  });

  test('the answer is the success envelope’s data', async () => {
    const run = runOf('run-1', 'running');
    current().answer((_, res) => ok(res, 200, { run }));
    expect(await client().runs.get('run-1')).toEqual({ run });
  });
});

describe('POST /runs and trigger carry an Idempotency-Key: generated when not given, kept when given', () => {
  test('two starts without a key send two different random keys', async () => {
    current().answer((_, res) => ok(res, 202, { ...runOf('run-1', 'queued'), replayed: false }));
    await client().runs.start({ repoId: 'repo-1', prompt: 'x' });
    await client().runs.start({ repoId: 'repo-1', prompt: 'x' });
    const [first, second] = current().received.map((r) => r.headers['idempotency-key']);
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second).toMatch(/^[0-9a-f-]{36}$/);
    expect(first).not.toBe(second);
  });

  test('the key given is the key sent, for runs.start and automations.trigger', async () => {
    current().answer((_, res) => ok(res, 202, { run: {} }));
    await client().runs.start({ repoId: 'repo-1', prompt: 'x' }, { idempotencyKey: 'start-key' });
    await client().automations.trigger('a1', { repoId: 'repo-1' }, { idempotencyKey: 'trigger-key' });
    expect(current().received.map((r) => r.headers['idempotency-key'])).toEqual(['start-key', 'trigger-key']);
  });

  test('no other call sends one', async () => {
    current().answer((_, res) => ok(res, 200, { run: runOf('run-1', 'cancelled'), status: 'already_terminal', alreadyTerminal: true }));
    await client().runs.cancel('run-1');
    expect(current().received[0]?.headers['idempotency-key']).toBeUndefined();
  });
});

describe('every failure is an ArsApiError: code, status, message, requestId (X-Request-Id)', () => {
  test('the failure envelope: its code and message, the HTTP status, the request id', async () => {
    current().answer((_, res) => fail(res, 404, 'NOT_FOUND', 'Run not found'));
    const error = await rejection(client().runs.get('nope'));
    expect(error).toBeInstanceOf(ArsApiError);
    expect(error).toMatchObject({ name: 'ArsApiError', code: 'NOT_FOUND', status: 404, message: 'Run not found', requestId: 'req-1', retryAfterSeconds: null });
  });

  test('an answer that is not JSON (a proxy’s HTML page) is INVALID_RESPONSE with its status', async () => {
    current().answer((_, res) => {
      res.writeHead(502, { 'Content-Type': 'text/html' });
      res.end('<html><body>Bad gateway</body></html>');
    });
    const error = await rejection(client().repos.list());
    expect(error).toMatchObject({ code: 'INVALID_RESPONSE', status: 502, requestId: 'req-1' });
    expect((error as Error).message).toContain('Bad gateway');
  });

  test('a 200 whose body is garbled JSON, or JSON but no envelope, is INVALID_RESPONSE', async () => {
    current().answer((_, res, n) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(n === 1 ? '{"ok": true, "data": {' : '{"repos": []}');
    });
    expect(await rejection(client().repos.list())).toMatchObject({ code: 'INVALID_RESPONSE', status: 200 });
    expect(await rejection(client().repos.list())).toMatchObject({ code: 'INVALID_RESPONSE', status: 200 });
  });

  test('a service that cannot be reached is CONNECTION_FAILED with status 0', async () => {
    const { baseUrl } = current();
    await current().close();
    const error = await rejection(client({ retry: { maxAttempts: 1 } }).repos.list());
    expect(error).toMatchObject({ code: 'CONNECTION_FAILED', status: 0, requestId: null });
    expect((error as Error).message).toContain(baseUrl);
  });
});

describe('automations.listAll follows nextCursor, sent unchanged as cursor, until it is null', () => {
  test('two pages: every summary once, in order', async () => {
    current().answer((request, res) =>
      request.query.get('cursor') === null
        ? ok(res, 200, { automations: [{ id: 'a1' }, { id: 'a2' }], nextCursor: 'opaque+/=' })
        : ok(res, 200, { automations: [{ id: 'a3' }], nextCursor: null }),
    );
    const ids: string[] = [];
    for await (const summary of client().automations.listAll({ limit: 2 })) ids.push(summary.id);
    expect(ids).toEqual(['a1', 'a2', 'a3']);
    expect(current().received.map((r) => [r.query.get('limit'), r.query.get('cursor')])).toEqual([
      ['2', null],
      ['2', 'opaque+/='],
    ]);
  });
});

describe('apiKeys.revokeCurrent: DELETE {baseUrl}/api/settings/api-keys/current with the token as bearer', () => {
  test('the route outside /api/v1/svc, the bearer, the answer', async () => {
    current().answer((_, res) => ok(res, 200, { revoked: true, id: 'pat-1' }));
    expect(await client().apiKeys.revokeCurrent()).toEqual({ revoked: true, id: 'pat-1' });
    expect(current().received[0]).toMatchObject({ method: 'DELETE', path: '/api/settings/api-keys/current' });
    expect(current().received[0]?.headers.authorization).toBe('Bearer tok_test');
  });

  test('a token already revoked is UNAUTHORIZED', async () => {
    current().answer((_, res) => fail(res, 401, 'UNAUTHORIZED', 'Invalid token'));
    expect(await rejection(client().apiKeys.revokeCurrent())).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  });
});

describe('exchangeLoginCode: POST {baseUrl}/api/cli/login/token {code, code_verifier, redirect_uri}, no token', () => {
  const params = () => ({ baseUrl: current().baseUrl, code: 'c0de', codeVerifier: 'v'.repeat(43), redirectUri: 'http://127.0.0.1:4321/callback' });

  test('the body in the route’s names, no Authorization, the minted token back', async () => {
    const minted = { token: 'tok_abc', id: 'pat-1', prefix: 'tok_abcdefgh', scopes: ['read', 'write'], expiresAt: '2027-01-01T00:00:00.000Z' };
    current().answer((_, res) => ok(res, 200, minted));
    expect(await exchangeLoginCode(params())).toEqual(minted);
    const [request] = current().received;
    expect(request).toMatchObject({ method: 'POST', path: '/api/cli/login/token' });
    expect(JSON.parse(request?.body ?? '')).toEqual({ code: 'c0de', code_verifier: 'v'.repeat(43), redirect_uri: 'http://127.0.0.1:4321/callback' });
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.headers['content-type']).toBe('application/json');
  });

  test('a bad or used code is the BAD_REQUEST of the envelope', async () => {
    current().answer((_, res) => fail(res, 400, 'BAD_REQUEST', 'The login code is invalid or expired'));
    expect(await rejection(exchangeLoginCode(params()))).toMatchObject({ code: 'BAD_REQUEST', status: 400, requestId: 'req-1' });
  });
});

describe('what the client keeps of its own agrees with the package and the contract', () => {
  test('the User-Agent version is package.json’s', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(CLIENT_VERSION).toBe(manifest.version);
  });

  test('the terminal statuses wait() and follow() stop at are the contract’s', () => {
    expect([...TERMINAL_STATUSES].sort()).toEqual([...TERMINAL_RUN_STATUSES].sort());
  });
});
