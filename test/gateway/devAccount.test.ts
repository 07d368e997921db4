import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalSourceHost } from '@ars/source-host';
import { startGatewayUnderTest, type GatewayUnderTest } from '@ars/gateway/testing';
import { sharedSystem, type SystemView } from '@ars/testenv';
import { bearer, call, createToken, dataOf, errorOf, type Account } from '../support/accounts.js';
import { PRODUCTION_GATEWAY_ENV } from '../support/production.js';
import { admin } from '../support/admin.js';

const run = promisify(execFile);

/** `npm run --silent admin -- dev-account --json` (or `args`) from the repository root, exactly as tools call it. */
const adminWith = (env: Record<string, string>, args = ['dev-account', '--json']) => admin(args, env);

const sharedView = sharedSystem();
let system: SystemView;
let gateway: SystemView['gateway'];
let production: GatewayUnderTest;
beforeAll(async () => {
  system = sharedView();
  gateway = system.gateway;
  production = await startGatewayUnderTest({
    system,
    env: { ...PRODUCTION_GATEWAY_ENV },
  });
}, 120_000);
afterAll(async () => {
  await production?.stop();
}, 60_000);

describe('npm run --silent admin -- dev-account --json prints exactly one JSON object for a brand-new account', () => {
  test('{baseUrl, userId, sessionCookie, signInUrl, installationId, repos, pullRequest} on one line; the cookie authenticates the API key routes', async () => {
    const result = await adminWith({ ARS_BASE_URL: gateway.baseUrl, ARS_ENV: 'development' });
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    const account = JSON.parse(result.stdout) as Account & { baseUrl: string };
    expect(Object.keys(account)).toEqual(['baseUrl', 'userId', 'sessionCookie', 'signInUrl', 'installationId', 'repos', 'pullRequest']);
    expect(account.baseUrl).toBe(gateway.baseUrl);
    expect(account.sessionCookie).toMatch(/^ars_session=[A-Za-z0-9_-]{43}$/);
    expect(account.signInUrl).toMatch(new RegExp(`^${gateway.baseUrl.replace(/[.]/g, '\\.')}/dev/sign-in\\?code=[A-Za-z0-9_-]{43}$`));
    expect(Number.isInteger(account.installationId)).toBe(true);
    expect(account.repos.length).toBeGreaterThanOrEqual(2);
    for (const repo of account.repos) expect(Object.keys(repo)).toEqual(['id', 'full_name', 'default_branch']);

    const token = await createToken(gateway.baseUrl, account);
    const repos = dataOf(await call<{ repos: { id: string }[] }>(`${gateway.baseUrl}/api/v1/svc/repos`, { headers: bearer(token.token) })).repos;
    expect(repos.map((r) => r.id).sort()).toEqual(account.repos.map((r) => r.id).sort());
  });

  test('its first repository has an open pull request whose review check run exists and is linked: POST /pr-reviews/rerun works at once', async () => {
    const result = await adminWith({ ARS_BASE_URL: gateway.baseUrl, ARS_ENV: 'development' });
    const account = JSON.parse(result.stdout) as Account & {
      pullRequest: { repoId: string; number: number; headSha: string; checkRunId: number; attemptId: string };
    };
    const { pullRequest } = account;
    expect(pullRequest).toEqual({
      repoId: account.repos[0]?.id,
      number: 1,
      url: expect.any(String),
      headRef: 'ars/sample-review',
      headSha: expect.stringMatching(/^[0-9a-f]{40}$/),
      checkRunId: expect.any(Number),
      attemptId: expect.any(String),
      automationId: expect.any(String),
      automationRunId: expect.any(String),
    });
    const host = new LocalSourceHost(system.sourceHostDir);
    const fullName = account.repos[0]?.full_name ?? '';
    expect(await host.readCheckRun(fullName, pullRequest.checkRunId)).toMatchObject({
      name: 'ARS review',
      headSha: pullRequest.headSha,
      externalId: pullRequest.attemptId,
    });
    expect(await host.getPullRequest({ installation: { account: fullName.split('/')[0] ?? '', externalId: null }, fullName }, 1)).toMatchObject({
      state: 'open',
    });

    const token = await createToken(gateway.baseUrl, account);
    const rerun = await call<{ queued: boolean; workflowRunId: string }>(`${gateway.baseUrl}/api/v1/svc/pr-reviews/rerun`, {
      method: 'POST',
      headers: bearer(token.token),
      json: { repoId: pullRequest.repoId, prNumber: pullRequest.number },
    });
    expect(rerun.status).toBe(200);
    expect(dataOf(rerun)).toMatchObject({ queued: true, prNumber: 1, repoId: pullRequest.repoId });
  });

  test('each repository is a real git repository on the local source host with its default branch', async () => {
    const result = await adminWith({ ARS_BASE_URL: gateway.baseUrl, ARS_ENV: 'development' });
    const account = JSON.parse(result.stdout) as Account;
    for (const repo of account.repos) {
      const answer = await fetch(`${system.stack.services.catalog.url}/internal/users/${account.userId}/repos/${repo.id}`, {
        headers: { 'x-internal-token': system.internalToken, 'x-caller-service': 'test' },
      });
      const { data } = (await answer.json()) as { data: { repo: { clone_url: string } } };
      const { stdout } = await run('git', ['ls-remote', '--symref', data.repo.clone_url, 'HEAD']);
      expect(stdout).toContain(`ref: refs/heads/${repo.default_branch}`);
    }
  });

  test('without ARS_BASE_URL it finds the running stack through its stack file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ars-stack-state-'));
    try {
      writeFileSync(join(dir, 'stack.json'), JSON.stringify({ baseUrl: gateway.baseUrl, pid: process.pid, startedAt: new Date().toISOString() }));
      const result = await adminWith({ ARS_BASE_URL: '', STACK_STATE_DIR: dir, ARS_ENV: 'development' });
      expect(result.code).toBe(0);
      expect((JSON.parse(result.stdout) as { baseUrl: string }).baseUrl).toBe(gateway.baseUrl);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('every call makes a new user and installation', async () => {
    const [a, b] = await Promise.all([
      adminWith({ ARS_BASE_URL: gateway.baseUrl, ARS_ENV: 'development' }),
      adminWith({ ARS_BASE_URL: gateway.baseUrl, ARS_ENV: 'development' }),
    ]);
    const first = JSON.parse(a.stdout) as { userId: string; installationId: number };
    const second = JSON.parse(b.stdout) as { userId: string; installationId: number };
    expect(first.userId).not.toBe(second.userId);
    expect(first.installationId).not.toBe(second.installationId);
  });
});

describe('npm run --silent admin -- open-pull-request opens a pull request from a branch on the local source host and queues its first review', () => {
  test('a pushed branch of the second repository: one JSON object with the pull request and its attempt; the rerun works at once', async () => {
    const account = JSON.parse((await adminWith({ ARS_BASE_URL: gateway.baseUrl, ARS_ENV: 'development' })).stdout) as Account;
    const second = account.repos[1];
    const host = new LocalSourceHost(system.sourceHostDir);
    const [owner = ''] = (second?.full_name ?? '').split('/');
    const cloneUrl = (await host.listRepositories({ account: owner, externalId: null })).find((r) => r.fullName === second?.full_name)?.cloneUrl ?? '';
    const work = mkdtempSync(join(tmpdir(), 'ars-open-pr-'));
    try {
      const git = (...args: string[]) => run('git', ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.test', ...args], { cwd: work });
      await git('clone', '--quiet', cloneUrl, '.');
      await git('checkout', '--quiet', '-b', 'feature/greeting');
      writeFileSync(join(work, 'greeting.txt'), 'hello\n');
      await git('add', '-A');
      await git('commit', '--quiet', '-m', 'Add a greeting');
      await git('push', '--quiet', 'origin', 'HEAD');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    const args = ['open-pull-request', '--repo', second?.id ?? '', '--head', 'feature/greeting', '--title', 'Add a greeting', '--json'];
    const result = await adminWith({ ARS_BASE_URL: gateway.baseUrl, ARS_ENV: 'development', ARS_SESSION_COOKIE: account.sessionCookie }, args);
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    const opened = JSON.parse(result.stdout) as { pullRequest: { number: number; headRef: string }; attempt: { id: string; checkRunId: number } };
    expect(opened.pullRequest).toMatchObject({ repoId: second?.id, number: 1, headRef: 'feature/greeting' });
    expect(await host.readCheckRun(second?.full_name ?? '', opened.attempt.checkRunId)).toMatchObject({ name: 'ARS review', externalId: opened.attempt.id });

    const token = await createToken(gateway.baseUrl, account);
    const rerun = await call(`${gateway.baseUrl}/api/v1/svc/pr-reviews/rerun`, {
      method: 'POST',
      headers: bearer(token.token),
      json: { repoId: second?.id, prNumber: 1 },
    });
    expect(rerun.status).toBe(200);

    // The same again: one pull request per head and base, said in one line.
    const again = await adminWith({ ARS_BASE_URL: gateway.baseUrl, ARS_ENV: 'development', ARS_SESSION_COOKIE: account.sessionCookie }, args);
    expect([again.code, again.stdout]).toEqual([1, '']);
    expect(again.stderr).toContain('CONFLICT: The pull request could not be opened');
  });

  test('a branch that does not exist, or no session cookie: exit 1 with one line saying why', async () => {
    const account = JSON.parse((await adminWith({ ARS_BASE_URL: gateway.baseUrl, ARS_ENV: 'development' })).stdout) as Account;
    const missing = await adminWith({ ARS_BASE_URL: gateway.baseUrl, ARS_ENV: 'development', ARS_SESSION_COOKIE: account.sessionCookie }, [
      'open-pull-request',
      '--repo',
      account.repos[1]?.id ?? '',
      '--head',
      'no-such-branch',
    ]);
    expect([missing.code, missing.stdout]).toEqual([1, '']);
    expect(missing.stderr).toContain('head branch no-such-branch does not exist');
    const noCookie = await adminWith({ ARS_BASE_URL: gateway.baseUrl, ARS_ENV: 'development', ARS_SESSION_COOKIE: '' }, [
      'open-pull-request',
      '--repo',
      'r',
      '--head',
      'h',
    ]);
    expect(noCookie.code).toBe(1);
    expect(noCookie.stderr).toContain('a session cookie is required');
  });
});

describe('it is a development tool: it refuses production', () => {
  test('ARS_ENV=production: exit 1, one line on stderr, nothing on stdout', async () => {
    const result = await adminWith({ ARS_BASE_URL: gateway.baseUrl, ARS_ENV: 'production' });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('production');
  });

  test('a gateway running in production has no development account route and no sign-in link page (404), and the command says so', async () => {
    const answer = await call(`${production.baseUrl}/api/dev/accounts`, { method: 'POST', json: {} });
    expect(answer.status).toBe(404);
    expect(errorOf(answer).code).toBe('NOT_FOUND');
    const signIn = await fetch(`${production.baseUrl}/dev/sign-in?code=${'A'.repeat(43)}`);
    expect(signIn.status).toBe(404);
    expect(signIn.headers.get('set-cookie')).toBeNull();
    const result = await adminWith({ ARS_BASE_URL: production.baseUrl, ARS_ENV: 'development' });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('production');
  });

  test('no stack listening: exit 1 with one line naming the address', async () => {
    const result = await adminWith({ ARS_BASE_URL: 'http://127.0.0.1:9', ARS_ENV: 'development' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('http://127.0.0.1:9');
  });
});
