// The `ars` commands on the whole stack, as a child process with ARS_TOKEN (no login): `ars run
// --follow` printing every event and exiting by the run's outcome (stand-in directives: `@say`,
// `@fail`), runs get/events/cancel, repos, sandboxes, mcp-servers masked, automations get/trigger/runs,
// pr-review rerun, --json, and the error line.
import { bearer, call, createAccount, createToken, dataOf, type Account, type CreatedToken } from '../support/accounts.js';
import { automationClient, graphOf, publishAutomation, untilRun, type AutomationClient } from '../support/automations.js';
import { cliConfigDir, expectExit, runCli } from '../support/cli.js';
import type { RunEvent } from '../support/runs.js';
import { sharedSystem } from '@ars/testenv';

const system = sharedSystem();
const base = () => system().baseUrl;

/** A fresh user (the run-start budget is per user) and the CLI's environment for it: ARS_TOKEN and the base URL, no credentials file. */
async function user(): Promise<{ account: Account; token: CreatedToken; env: Record<string, string> }> {
  const account = await createAccount(base());
  const token = await createToken(base(), account, { name: 'cli-test' });
  return { account, token, env: { ARS_TOKEN: token.token, ARS_BASE_URL: base(), ARS_CONFIG_DIR: cliConfigDir() } };
}

async function eventsOf(token: string, runId: string): Promise<RunEvent[]> {
  return dataOf(await call<{ events: RunEvent[] }>(`${base()}/api/v1/svc/runs/${runId}/events?limit=200`, { headers: bearer(token) })).events;
}

/** Every event of the run appears in the output, in order, as a line naming its type (and its message). */
function expectEveryEventPrinted(stdout: string, events: RunEvent[]): void {
  const lines = stdout.split('\n');
  let at = 0;
  for (const event of events) {
    const found = lines.findIndex(
      (line, i) => i >= at && line.includes(event.type) && (event.message === null || line.includes(event.message.split('\n')[0] ?? '')),
    );
    if (found < 0) throw new Error(`event ${event.id} (${event.type} ${event.message}) not printed after line ${at}:\n${stdout}`);
    at = found + 1;
  }
}

describe('ars run --follow prints every event live and exits by the outcome', () => {
  test('a run that succeeds (repo by full name): every event printed, the last line says success, exit 0', async () => {
    const { account, token, env } = await user();
    const repo = account.repos[0];
    const result = await runCli(['run', repo?.full_name ?? '', '@say hello from the cli\n@say second line', '--follow'], env);
    expect(result.stderr).toMatch(/^run \S+ started on /m);
    expectExit(result, 0);
    const runId = /^run (\S+) success$/m.exec(result.stdout)?.[1] ?? '';
    const events = await eventsOf(token.token, runId);
    expect(events.map((e) => e.message)).toEqual(expect.arrayContaining(['hello from the cli', 'second line']));
    expectEveryEventPrinted(result.stdout, events);
  }, 180_000);

  test('a run that fails (@fail): every event printed, the last line says failed, exit 1', async () => {
    const { account, token, env } = await user();
    const result = await runCli(['run', account.repos[0]?.id ?? '', '@say about to fail\n@fail the stand-in failed on purpose', '--follow'], env);
    expectExit(result, 1);
    const runId = /^run (\S+) failed/m.exec(result.stdout)?.[1] ?? '';
    expect(runId).not.toBe('');
    expectEveryEventPrinted(result.stdout, await eventsOf(token.token, runId));
  }, 180_000);

  test('--follow --json prints {run, events} once the run ended, with every event', async () => {
    const { account, token, env } = await user();
    const result = await runCli(['run', account.repos[0]?.id ?? '', '@say json please', '--follow', '--json'], env);
    expectExit(result, 0);
    const data = JSON.parse(result.stdout) as { run: { runId: string; status: string }; events: RunEvent[] };
    expect(data.run).toMatchObject({ status: 'success' });
    expect(data.events.map((e) => e.id)).toEqual((await eventsOf(token.token, data.run.runId)).map((e) => e.id));
  }, 180_000);
});

describe('ars runs get|events|cancel and ars run without --follow', () => {
  test('run answers the started run; runs get and runs events --json answer the service’s data; runs cancel of an ended run says so', async () => {
    const { account, env } = await user();
    const started = await runCli(['run', account.repos[0]?.id ?? '', '@say quick', '--json'], env);
    expectExit(started, 0);
    const run = JSON.parse(started.stdout) as { runId: string; replayed: boolean };
    expect(run.replayed).toBe(false);
    const followed = await runCli(['runs', 'events', run.runId, '--follow'], env);
    expectExit(followed, 0);
    const got = await runCli(['runs', 'get', run.runId, '--json'], env);
    expect(JSON.parse(got.stdout)).toMatchObject({ run: { runId: run.runId, status: 'success' } });
    const events = await runCli(['runs', 'events', run.runId, '--json'], env);
    expect((JSON.parse(events.stdout) as { events: RunEvent[] }).events.some((e) => e.message === 'quick')).toBe(true);
    const cancelled = await runCli(['runs', 'cancel', run.runId, '--json'], env);
    expectExit(cancelled, 0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ run: { runId: run.runId, status: 'success' } });
  }, 180_000);
});

describe('ars repos, sandboxes and mcp-servers; errors as one line with code, status and request id', () => {
  test('repos: a table by default, the data with --json', async () => {
    const { account, env } = await user();
    const table = await runCli(['repos'], env);
    expectExit(table, 0);
    for (const repo of account.repos) expect(table.stdout).toContain(repo.full_name);
    const json = await runCli(['repos', '--json'], env);
    expect((JSON.parse(json.stdout) as { repos: { id: string }[] }).repos).toHaveLength(account.repos.length);
  }, 60_000);

  test('sandboxes --json answers {sandboxes}', async () => {
    const { env } = await user();
    const result = await runCli(['sandboxes', '--json'], env);
    expectExit(result, 0);
    expect(Array.isArray((JSON.parse(result.stdout) as { sandboxes: unknown[] }).sandboxes)).toBe(true);
  }, 60_000);

  test('automations list --json answers {automations, nextCursor}; whoami names the token’s source and proves it works', async () => {
    const { token, env } = await user();
    const automations = await runCli(['automations', 'list', '--json'], env);
    expectExit(automations, 0);
    expect(JSON.parse(automations.stdout)).toEqual({ automations: expect.any(Array), nextCursor: null });
    const whoami = await runCli(['whoami', '--json'], env);
    expectExit(whoami, 0);
    expect(JSON.parse(whoami.stdout)).toMatchObject({ baseUrl: base(), tokenSource: 'ARS_TOKEN', prefix: token.prefix, valid: true });
    expect(whoami.stdout).not.toContain(token.token);
  }, 60_000);

  test('mcp-servers never prints an env or header value, on the terminal or with --json; the names are kept', async () => {
    const { token, env } = await user();
    const { servers } = dataOf(
      await call<{ servers: { name: string; config: { env?: Record<string, string>; http_headers?: Record<string, string> } }[] }>(
        `${base()}/api/v1/svc/mcp/servers`,
        { headers: bearer(token.token) },
      ),
    );
    const secrets = servers.flatMap((s) => [...Object.values(s.config.env ?? {}), ...Object.values(s.config.http_headers ?? {})]);
    expect(secrets.length).toBeGreaterThan(0);
    for (const args of [['mcp-servers'], ['mcp-servers', '--json']]) {
      const result = await runCli(args, env);
      expectExit(result, 0);
      for (const secret of secrets) expect(result.stdout).not.toContain(secret);
      expect(result.stdout).toContain('GITHUB_PERSONAL_ACCESS_TOKEN');
      expect(result.stdout).toContain('••••');
    }
  }, 60_000);

  test('an error answer: `error <CODE> (HTTP <status>): <message> [request <id>]` on stderr, exit 2', async () => {
    const { env } = await user();
    const missing = await runCli(['runs', 'get', 'run_does_not_exist'], env);
    expectExit(missing, 2);
    expect(missing.stderr).toMatch(/^error NOT_FOUND \(HTTP 404\): .+ \[request \S+\]$/m);
    const badToken = await runCli(['repos', '--token', `tok_${'B'.repeat(32)}`], env);
    expectExit(badToken, 2);
    expect(badToken.stderr).toMatch(/^error UNAUTHORIZED \(HTTP 401\): Invalid access token \[request \S+\]$/m);
    const unknownRepo = await runCli(['run', 'nobody/nothing', '@say hi'], env);
    expectExit(unknownRepo, 2);
    expect(unknownRepo.stderr).toMatch(/^error NOT_FOUND \(HTTP 0\): No repository nobody\/nothing/m);
  }, 60_000);
});

/** The CLI's environment for an automation client's user: its PAT as ARS_TOKEN. */
function envOf(c: AutomationClient): Record<string, string> {
  return { ARS_TOKEN: (c.auth.authorization ?? '').replace(/^Bearer /, ''), ARS_BASE_URL: base(), ARS_CONFIG_DIR: cliConfigDir() };
}

describe('ars automations get|trigger|runs: an automation run started and followed from the command line', () => {
  test('get --json answers {automation}; trigger <id> <full name> --input starts a run, replayed under the same key; runs lists it; it succeeds with the input', async () => {
    const c = await automationClient(base());
    const env = envOf(c);
    const automationId = await publishAutomation(
      c,
      graphOf(
        [
          ['start', 'start'],
          ['greet', 'agent', { agentId: c.agentId, prompt: '@say hello {{ input.name }}' }],
          ['end', 'end'],
        ],
        [
          ['start', 'greet'],
          ['greet', 'end'],
        ],
      ),
    );
    const got = await runCli(['automations', 'get', automationId, '--json'], env);
    expectExit(got, 0);
    expect(JSON.parse(got.stdout)).toMatchObject({ automation: { id: automationId } });

    const repo = c.account.repos[0]?.full_name ?? '';
    const trigger = ['automations', 'trigger', automationId, repo, '--input', '{"name":"from the cli"}', '--idempotency-key', `cli-${automationId}`, '--json'];
    const triggered = await runCli(trigger, env);
    expectExit(triggered, 0);
    const { run } = JSON.parse(triggered.stdout) as { run: { jobRunId: string; outcome: string; automationId: string } };
    expect(run).toMatchObject({ automationId, outcome: 'started', jobRunId: expect.any(String) });
    const replayed = await runCli(trigger, env);
    expectExit(replayed, 0);
    expect(JSON.parse(replayed.stdout)).toMatchObject({ run: { jobRunId: run.jobRunId, outcome: 'replayed' } });

    const ended = await untilRun(c, automationId, run.jobRunId, 'the run ended', (detail) => ['success', 'failed', 'cancelled'].includes(detail.status));
    expect(ended).toMatchObject({ status: 'success' });
    expect(ended.nodeRuns.find((node) => node.nodeId === 'greet')?.output).toMatchObject({ lastMessage: 'hello from the cli' });

    const runs = await runCli(['automations', 'runs', automationId, '--json'], env);
    expectExit(runs, 0);
    expect((JSON.parse(runs.stdout) as { runs: { id: string; status: string }[] }).runs).toEqual([
      expect.objectContaining({ id: run.jobRunId, status: 'success' }),
    ]);
    const table = await runCli(['automations', 'runs', automationId], env);
    expectExit(table, 0);
    expect(table.stdout).toMatch(new RegExp(`^${run.jobRunId}\\s+success\\s`, 'm'));
  }, 180_000);

  test('trigger with --input that is not JSON: exit 2 before any request; an unknown automation: NOT_FOUND, exit 2', async () => {
    const c = await automationClient(base());
    const env = envOf(c);
    const badInput = await runCli(['automations', 'trigger', 'aut_x', c.repoId, '--input', '{not json'], env);
    expectExit(badInput, 2);
    expect(badInput.stderr).toMatch(/^error BAD_REQUEST .*--input must be a JSON object/m);
    const missing = await runCli(['automations', 'get', 'aut_does_not_exist'], env);
    expectExit(missing, 2);
    expect(missing.stderr).toMatch(/^error NOT_FOUND \(HTTP 404\): .+ \[request \S+\]$/m);
  }, 60_000);
});

describe('ars pr-review rerun queues a fresh review of a pull request', () => {
  test('the development account’s pull request by repository full name and number: {queued: true, prNumber, repoId}; fields on the terminal', async () => {
    const c = await automationClient(base(), { pullRequest: true });
    const env = envOf(c);
    const pr = c.account.pullRequest;
    const repo = c.account.repos.find((r) => r.id === pr?.repoId);
    const rerun = await runCli(['pr-review', 'rerun', repo?.full_name ?? '', String(pr?.number ?? 0), '--json'], env);
    expectExit(rerun, 0);
    expect(JSON.parse(rerun.stdout)).toMatchObject({ queued: true, prNumber: pr?.number, repoId: pr?.repoId });
    const shown = await runCli(['pr-review', 'rerun', pr?.repoId ?? '', String(pr?.number ?? 0)], env);
    expectExit(shown, 0);
    expect(shown.stdout).toMatch(/^queued:\s+true$/m);
  }, 120_000);

  test('a number that is not one is refused before any request; a pull request that does not exist: NOT_FOUND, exit 2', async () => {
    const c = await automationClient(base());
    const env = envOf(c);
    const notANumber = await runCli(['pr-review', 'rerun', c.repoId, 'seven'], env);
    expectExit(notANumber, 2);
    const missing = await runCli(['pr-review', 'rerun', c.repoId, '999', '--json'], env);
    expectExit(missing, 2);
    expect(missing.stderr).toMatch(/^error NOT_FOUND \(HTTP 404\): /m);
  }, 60_000);
});
