// POST /sandboxes, GET /sandboxes, GET /sandboxes/{id}/logs through the gateway on the whole stack
// (local provider), as a client would see them.
import { jest } from '@jest/globals';
import { dataOf, errorOf } from '../support/accounts.js';
import { commitFiles, DEV_SERVER, eventTypes, newSandboxesUser, NPM_PROJECT, SANDBOX_FIELDS } from '../support/sandboxes.js';
import { sharedSystem } from '@ars/testenv';

jest.setTimeout(180_000);

const system = sharedSystem();

describe('create or reuse: the same caller, repository, branches and root directory reuse a live sandbox', () => {
  test('a create answers 202 with the Sandbox (record id, provider id null until the provider has one); the same inputs again reuse it with a reused lifecycle event', async () => {
    const { client, repoId } = await newSandboxesUser(system().baseUrl);
    const first = await client.create({ repoId, workingBranch: 'feature/reuse', createBranch: true });
    expect(first.status).toBe(202);
    const sandbox = dataOf(first).sandbox;
    expect(Object.keys(sandbox).sort()).toEqual([...SANDBOX_FIELDS]);
    expect(sandbox).toMatchObject({
      repo_id: repoId,
      status: 'provisioning',
      base_branch: 'main',
      working_branch: 'feature/reuse',
      root_directory: null,
      preview_url: null,
      error: null,
    });
    expect(sandbox.id).toMatch(/^sbx_/);

    const ready = await client.waitForStatus(sandbox.id, 'ready');
    expect(ready.sandbox.sandbox_id).toMatch(/^local-/);

    const again = await client.create({ repoId, workingBranch: 'feature/reuse', createBranch: true });
    expect(again.status).toBe(202);
    expect(dataOf(again).sandbox.id).toBe(sandbox.id);
    expect(dataOf(again).sandbox.status).toBe('ready');
    const logs = dataOf(await client.logs(sandbox.id));
    const reused = logs.lifecycle_events.find((event) => event.event_type === 'reused');
    expect(reused).toMatchObject({ decision_code: 'same_repo_and_branches', worker_run_id: null });
    expect(eventTypes(logs).slice(0, 5)).toEqual(['requested', 'provisioning', 'provisioned', 'limits', 'install_skipped']);
  });

  test('a different working branch provisions a new sandbox', async () => {
    const { client, repoId } = await newSandboxesUser(system().baseUrl);
    const a = await client.created({ repoId, workingBranch: 'feature/a' });
    const b = await client.created({ repoId, workingBranch: 'feature/b' });
    const aAgain = await client.created({ repoId, workingBranch: 'feature/a' });
    expect(b.id).not.toBe(a.id);
    expect(aAgain.id).toBe(a.id);
    await client.waitForStatus(b.id, 'ready');
  });

  test('identical creates racing make one sandbox', async () => {
    const { client, repoId } = await newSandboxesUser(system().baseUrl);
    const answers = await Promise.all(Array.from({ length: 6 }, () => client.create({ repoId, workingBranch: 'feature/race' })));
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(202));
    expect(new Set(answers.map((a) => dataOf(a).sandbox.id)).size).toBe(1);
  });

  test('createBranch without a workingBranch names the same generated branch for the same inputs, so it is reused too', async () => {
    const { client, repoId } = await newSandboxesUser(system().baseUrl);
    const first = await client.created({ repoId, createBranch: true });
    const second = await client.created({ repoId, createBranch: true });
    expect(first.working_branch).toMatch(/^agent\/sandbox-[0-9a-f]{12}$/);
    expect(second.id).toBe(first.id);
  });
});

describe('the install step: detected from the lock file or configured, its output in install_log', () => {
  test('a repository with package-lock.json runs npm ci, and its output is readable in install_log', async () => {
    const { client, account, repoId } = await newSandboxesUser(system().baseUrl);
    await commitFiles(system(), account, repoId, NPM_PROJECT);
    const sandbox = await client.created({ repoId });
    const logs = await client.waitForStatus(sandbox.id, 'ready');
    expect(logs.sandbox.install_log).toContain('$ npm ci --no-audit --no-fund');
    expect(logs.sandbox.install_log).toMatch(/up to date|added 0 packages|audited/);
    expect(logs.sandbox.install_log).toContain('ars: install finished');
    const started = logs.lifecycle_events.find((e) => e.event_type === 'install_started');
    expect(started).toMatchObject({ decision_code: 'lockfile:npm', payload: { command: 'npm ci --no-audit --no-fund' } });
    expect(logs.lifecycle_events.find((e) => e.event_type === 'install_finished')).toMatchObject({ decision_code: 'exit_0' });
    expect(eventTypes(logs)).toContain('ready');
  });

  test('an install step from .ars/sandbox.json runs in rootDirectory with the sandbox environment, and secrets never reach the log', async () => {
    const { client, account, repoId } = await newSandboxesUser(system().baseUrl);
    await commitFiles(system(), account, repoId, {
      'app/.ars/sandbox.json': JSON.stringify({
        install: 'echo installing in $(basename "$PWD"); echo "API_TOKEN=supersecretvalue123"; echo "INTERNAL_TOKEN is ${INTERNAL_TOKEN:-unset}"',
      }),
      'app/README.md': 'app\n',
    });
    const sandbox = await client.created({ repoId, rootDirectory: 'app' });
    expect(sandbox.root_directory).toBe('app');
    const logs = await client.waitForStatus(sandbox.id, 'ready');
    expect(logs.sandbox.install_log).toContain('installing in app');
    expect(logs.sandbox.install_log).toContain('INTERNAL_TOKEN is unset');
    expect(logs.sandbox.install_log).not.toContain('supersecretvalue123');
    expect(logs.sandbox.install_log).not.toContain(system().internalToken);
    expect(logs.lifecycle_events.find((e) => e.event_type === 'install_started')?.decision_code).toBe('configured');
  });

  test('a failing install step fails the sandbox with error set, install_failed and failed events, and its output kept', async () => {
    const { client, account, repoId } = await newSandboxesUser(system().baseUrl);
    await commitFiles(system(), account, repoId, { '.ars/sandbox.json': JSON.stringify({ install: 'echo about to fail; exit 3' }) });
    const sandbox = await client.created({ repoId });
    const logs = await client.waitForStatus(sandbox.id, 'failed');
    expect(logs.sandbox.error).toContain('exited with code 3');
    expect(logs.sandbox.install_log).toContain('about to fail');
    expect(logs.lifecycle_events.find((e) => e.event_type === 'install_failed')).toMatchObject({ decision_code: 'exit_nonzero', payload: { exitCode: 3 } });
    expect(logs.lifecycle_events.find((e) => e.event_type === 'failed')?.decision_code).toBe('install_failed');
    // The compute is released after the record turned failed.
    await client.waitFor(sandbox.id, (l) => eventTypes(l).includes('destroyed'), 30_000, 'destroyed recorded');
    // A failed sandbox is not reused: the same inputs provision a new one.
    const again = await client.created({ repoId });
    expect(again.id).not.toBe(sandbox.id);
  });

  test('a base branch missing from the repository fails the sandbox with the reason', async () => {
    const { client, repoId } = await newSandboxesUser(system().baseUrl);
    const sandbox = await client.created({ repoId, baseBranch: 'does-not-exist' });
    const logs = await client.waitForStatus(sandbox.id, 'failed');
    expect(logs.sandbox.error).toContain('the base branch "does-not-exist" does not exist');
    expect(logs.lifecycle_events.find((e) => e.event_type === 'failed')?.decision_code).toBe('base_branch_missing');
  });
});

describe('a declared dev command starts on a free port and preview_url answers HTTP', () => {
  test('the dev server from .ars/sandbox.json is reachable at preview_url and its output is in dev_log', async () => {
    const { client, account, repoId } = await newSandboxesUser(system().baseUrl);
    await commitFiles(system(), account, repoId, { ...DEV_SERVER, '.ars/sandbox.json': JSON.stringify({ dev: 'node server.mjs' }) });
    const sandbox = await client.created({ repoId });
    const logs = await client.waitFor(sandbox.id, (l) => l.sandbox.preview_url !== null || l.sandbox.status === 'failed', 60_000, 'preview_url set');
    expect(logs.sandbox.status).toBe('ready');
    const url = logs.sandbox.preview_url ?? '';
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(url);
    expect(await response.text()).toBe('hello from the dev server');
    const withLog = await client.waitFor(sandbox.id, (l) => (l.sandbox.dev_log ?? '').includes('dev server listening'), 10_000, 'dev_log written');
    expect(withLog.sandbox.dev_log).toContain('$ PORT=');
    expect(eventTypes(withLog)).toEqual(expect.arrayContaining(['dev_server_started', 'dev_server_ready']));
    expect(withLog.lifecycle_events.find((e) => e.event_type === 'dev_server_started')?.decision_code).toBe('configured');
  });

  test('package.json scripts.dev is the dev command when nothing is configured', async () => {
    const { client, account, repoId } = await newSandboxesUser(system().baseUrl);
    await commitFiles(system(), account, repoId, {
      ...DEV_SERVER,
      'package.json': JSON.stringify({ name: 'dev-fixture', version: '1.0.0', private: true, scripts: { dev: 'node server.mjs' } }),
      'package-lock.json': JSON.stringify({
        name: 'dev-fixture',
        version: '1.0.0',
        lockfileVersion: 3,
        requires: true,
        packages: { '': { name: 'dev-fixture', version: '1.0.0' } },
      }),
    });
    const sandbox = await client.created({ repoId });
    const logs = await client.waitFor(sandbox.id, (l) => l.sandbox.preview_url !== null || l.sandbox.status === 'failed', 60_000, 'preview_url set');
    expect(await (await fetch(logs.sandbox.preview_url ?? '')).text()).toBe('hello from the dev server');
    expect(logs.lifecycle_events.find((e) => e.event_type === 'dev_server_started')).toMatchObject({
      decision_code: 'package_json:dev',
      payload: { command: 'npm run dev' },
    });
  });
});

describe("GET /sandboxes: only the caller's, newest first, filtered by repo_id and status, limit clamped", () => {
  test('filters and clamping', async () => {
    const { client, repoId, otherRepoId } = await newSandboxesUser(system().baseUrl);
    const a = await client.created({ repoId, workingBranch: 'list/a' });
    const b = await client.created({ repoId, workingBranch: 'list/b' });
    const c = await client.created({ repoId: otherRepoId });
    await Promise.all([a, b, c].map((s) => client.waitForStatus(s.id, 'ready')));

    const all = dataOf(await client.list()).sandboxes;
    expect(all.map((s) => s.id)).toEqual([c.id, b.id, a.id]);
    expect(Object.keys(all[0] ?? {}).sort()).toEqual([...SANDBOX_FIELDS]);
    expect(dataOf(await client.list(`?repo_id=${encodeURIComponent(repoId)}`)).sandboxes.map((s) => s.id)).toEqual([b.id, a.id]);
    expect(dataOf(await client.list('?status=ready')).sandboxes).toHaveLength(3);
    expect(dataOf(await client.list('?status=stopped')).sandboxes).toHaveLength(0);
    expect(dataOf(await client.list('?limit=0')).sandboxes.map((s) => s.id)).toEqual([c.id]);
    expect(dataOf(await client.list('?limit=2')).sandboxes).toHaveLength(2);
    expect(dataOf(await client.list('?limit=5000')).sandboxes).toHaveLength(3);
    const bad = await client.list('?limit=many');
    expect(bad.status).toBe(400);
    expect(errorOf(bad).code).toBe('BAD_REQUEST');
  });
});
