import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertStandInsBuilt } from '../harness/testing.js';
import { commitToBare, startSandboxesKit, type SandboxesKit } from '../testing/sandboxesKit.js';

let kit: SandboxesKit;
beforeAll(async () => {
  assertStandInsBuilt();
  kit = await startSandboxesKit();
  await kit.startService();
});
afterAll(async () => {
  await kit?.stop();
});

describe('the agent’s own failure ends the run failed with its message (failure agent)', () => {
  test.each(['codex', 'claude-code'] as const)('%s: @fail', async (harness) => {
    const repo = await kit.newRepo();
    const request = await kit.requestRun(repo, '@say trying\n@fail the tests are red\n@say never', { harness });
    const finished = await kit.waitFinished(request.runId);
    expect(finished).toMatchObject({ status: 'failed', failure: 'agent' });
    expect(finished.error).toContain('the tests are red');
    const events = kit.messages(request.runId).events;
    expect(events.map((e) => e.message)).not.toContain('never');
    expect(events.some((e) => e.eventType === 'error')).toBe(true);
  });
});

describe('a sandbox that cannot be allocated ends the run failed (failure sandbox_allocation), without a sandbox-allocated message', () => {
  test('clone failure: the source repository is gone; the finish names no allocation either', async () => {
    const repo = await kit.newRepo();
    rmSync(repo.barePath, { recursive: true, force: true });
    const request = await kit.requestRun(repo, '@say hi');
    const finished = await kit.waitFinished(request.runId);
    expect(finished).toMatchObject({ status: 'failed', failure: 'sandbox_allocation', eventCount: 0 });
    expect(finished.error).toMatch(/^the repository could not be cloned: /);
    expect(kit.messages(request.runId).allocated).toEqual([]);
    for (const field of ['sandboxRecordId', 'sandboxId', 'runtime']) expect(finished).not.toHaveProperty(field);
  });

  test('a repository the catalog does not know for this user', async () => {
    const repo = await kit.newRepo();
    const other = await kit.newRepo();
    const request = await kit.requestRun({ ...repo, repoId: other.repoId }, '@say hi');
    const finished = await kit.waitFinished(request.runId);
    expect(finished).toMatchObject({ status: 'failed', failure: 'sandbox_allocation', error: 'the repository was not found for this user' });
  });

  test('a base branch the repository does not have', async () => {
    const repo = await kit.newRepo();
    const request = await kit.requestRun(repo, '@say hi', { branch: { base: 'develop', working: 'develop', createBranch: false } });
    expect(await kit.waitFinished(request.runId)).toMatchObject({
      status: 'failed',
      failure: 'sandbox_allocation',
      error: 'the base branch "develop" does not exist in the repository',
    });
  });

  test('rootDirectory missing in the repository: failed with a clear error, the sandbox record failed', async () => {
    const repo = await kit.newRepo();
    const request = await kit.requestRun(repo, '@say hi', { rootDirectory: 'packages/nope' });
    const finished = await kit.waitFinished(request.runId);
    expect(finished).toMatchObject({
      status: 'failed',
      failure: 'sandbox_allocation',
      error: 'the root directory "packages/nope" does not exist in the repository on branch "main"',
    });
    const sessions = kit.service!.deps.runSessions;
    const session = await sessions.get(request.runId);
    const record = await kit.service!.deps.sandboxRecords.get(repo.userId, session!.sandboxRecordId!);
    expect(record).toMatchObject({ status: 'failed', error: finished.error, root_directory: 'packages/nope' });
  });

  test('rootDirectory present: the harness runs there', async () => {
    const repo = await kit.newRepo();
    commitToBare(repo.barePath, 'main', { 'packages/app/package.json': '{}\n' });
    const request = await kit.requestRun(repo, '@shell pwd && ls', { rootDirectory: 'packages/app' });
    expect(await kit.waitFinished(request.runId)).toMatchObject({ status: 'success' });
    const shell = kit.messages(request.runId).events.find((e) => e.eventType === 'tool_call');
    expect(String(shell?.payload.output)).toMatch(/\/repo\/packages\/app\npackage\.json/);
  });

  test('startBy already passed when the request arrives: not started', async () => {
    const repo = await kit.newRepo();
    const request = await kit.requestRun(repo, '@say hi', { startBy: new Date(Date.now() - 1_000).toISOString() });
    const finished = await kit.waitFinished(request.runId);
    expect(finished).toMatchObject({ status: 'failed', failure: 'sandbox_allocation', eventCount: 0 });
    expect(finished.error).toContain('start deadline');
    expect(kit.messages(request.runId).allocated).toEqual([]);
  });
});

describe('a harness running longer than timeoutMs is stopped: failed harness_timeout', () => {
  test('@sleep past a 1.5 s limit', async () => {
    const repo = await kit.newRepo();
    const request = await kit.requestRun(repo, '@say starting\n@sleep 30000', { harness: 'claude-code', timeoutMs: 1_500 });
    const finished = await kit.waitFinished(request.runId);
    expect(finished).toMatchObject({ status: 'failed', failure: 'harness_timeout', error: 'time limit: the harness ran longer than 1.5 s' });
    expect(kit.messages(request.runId).events[0]?.eventType).toBe('stream_started');
  });
});

describe('a push the source repository refuses ends the run failed (failure push)', () => {
  test('a pre-receive hook rejecting every push', async () => {
    const repo = await kit.newRepo();
    const hook = join(repo.barePath, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho "pushes are closed" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    const request = await kit.requestRun(repo, '@write a.txt x', { branch: { base: 'main', working: 'ars/refused', createBranch: true } });
    const finished = await kit.waitFinished(request.runId);
    expect(finished).toMatchObject({ status: 'failed', failure: 'push' });
    expect(finished.error).toMatch(/^the changes could not be pushed to branch "ars\/refused": /);
    expect(finished.error).toContain('pre-receive hook declined');
  });
});
