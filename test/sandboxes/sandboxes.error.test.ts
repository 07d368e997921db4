// Bad input to the sandbox routes: 400 naming the field, in the contract's envelope, and nothing made.
import { jest } from '@jest/globals';
import { bearer, call, createToken, dataOf, errorOf } from '../support/accounts.js';
import { newSandboxesUser } from '../support/sandboxes.js';
import { sharedSystem } from '@ars/testenv';

jest.setTimeout(120_000);

const system = sharedSystem();

describe('rootDirectory must be a relative path without parent traversal', () => {
  test.each([['../x'], ['/abs'], ['a/../../b'], ['a/..']])('rootDirectory %s is 400 naming rootDirectory', async (rootDirectory) => {
    const { client, repoId } = await newSandboxesUser(system().baseUrl, 1);
    const answer = await client.create({ repoId, rootDirectory });
    expect(answer.status).toBe(400);
    expect(errorOf(answer).code).toBe('BAD_REQUEST');
    expect(errorOf(answer).message).toContain('rootDirectory');
    expect(dataOf(await client.list()).sandboxes).toHaveLength(0);
  });
});

describe('branch names must be valid Git refs', () => {
  test.each([
    ['baseBranch', 'a..b'],
    ['baseBranch', '-x'],
    ['workingBranch', 'a..b'],
    ['workingBranch', '-x'],
    ['workingBranch', 'has space'],
    ['workingBranch', 'ends.lock'],
  ])('%s %s is 400 naming the field', async (field, name) => {
    const { client, repoId } = await newSandboxesUser(system().baseUrl, 1);
    const answer = await client.create({ repoId, [field]: name });
    expect(answer.status).toBe(400);
    expect(errorOf(answer)).toMatchObject({ code: 'BAD_REQUEST' });
    expect(errorOf(answer).message).toContain(field);
  });
});

describe('the body: repoId required, fields typed', () => {
  test.each([
    [{}, 'repoId'],
    [{ repoId: '' }, 'repoId'],
    [{ repoId: 5 }, 'repoId'],
    [{ repoId: 'r', createBranch: 'yes' }, 'createBranch'],
    [{ repoId: 'r', baseBranch: 7 }, 'baseBranch'],
    [{ repoId: 'r', restoreSnapshotProjectId: 'p' }, 'restoreSnapshotId'],
  ])('%j is 400 naming %s', async (body, field) => {
    const { client } = await newSandboxesUser(system().baseUrl, 1);
    const answer = await client.create(body);
    expect(answer.status).toBe(400);
    expect(errorOf(answer).message).toContain(field);
  });

  test('malformed JSON is 400', async () => {
    const { client } = await newSandboxesUser(system().baseUrl, 1);
    const answer = await call(`${client.api}/sandboxes`, {
      method: 'POST',
      headers: { ...bearer((client as unknown as { tokens: string[] }).tokens[0] ?? ''), 'content-type': 'application/json' },
      body: '{"repoId":',
    });
    expect(answer.status).toBe(400);
    expect(errorOf(answer).code).toBe('BAD_REQUEST');
  });
});

describe("tenancy: another user's repository or sandbox is 404, never listed", () => {
  test("a create on another user's repository is 404 NOT_FOUND", async () => {
    const owner = await newSandboxesUser(system().baseUrl, 1);
    const stranger = await newSandboxesUser(system().baseUrl, 1);
    const answer = await stranger.client.create({ repoId: owner.repoId });
    expect(answer.status).toBe(404);
    expect(errorOf(answer).code).toBe('NOT_FOUND');
  });

  test("another user's sandbox logs are 404 and it is not in their list", async () => {
    const owner = await newSandboxesUser(system().baseUrl, 2);
    const stranger = await newSandboxesUser(system().baseUrl, 2);
    const sandbox = await owner.client.created({ repoId: owner.repoId });
    const logs = await stranger.client.logs(sandbox.id);
    expect(logs.status).toBe(404);
    expect(errorOf(logs).code).toBe('NOT_FOUND');
    expect(dataOf(await stranger.client.list()).sandboxes).toHaveLength(0);
    expect((await stranger.client.logs('sbx_does_not_exist')).status).toBe(404);
    expect((await owner.client.logs(sandbox.id)).status).toBe(200);
  });

  test('a read-only token cannot create (403 naming the write scope) but can list', async () => {
    const { account, repoId } = await newSandboxesUser(system().baseUrl, 1);
    const readOnly = await createToken(system().baseUrl, account, { name: 'ro', scopes: ['read'] });
    const api = `${system().baseUrl}/api/v1/svc`;
    const denied = await call(`${api}/sandboxes`, { method: 'POST', headers: bearer(readOnly.token), json: { repoId } });
    expect(denied.status).toBe(403);
    expect(errorOf(denied).message).toContain('write');
    expect((await call(`${api}/sandboxes`, { headers: bearer(readOnly.token) })).status).toBe(200);
  });
});
