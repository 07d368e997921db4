// The real CLIs, on the whole stack, as `npm start` runs them: every run's harness is the bundled
// `codex` (codex-cli 0.163) or `claude` (Claude Code 2.1.330), inside the sandbox's bubblewrap,
// calling the model stand-in (deploy/local/model-stand-in) through the sandbox's model proxy. The
// stand-in plays the same directives as the stand-in CLIs, so the events are the ones the rest of
// the suite sees from the stand-ins. A system of its own: HARNESS_CLIS=real (the shared one runs the
// stand-in CLIs), and HARNESS_STAND_IN_TOOLS=on (each CLI is handed the model stand-in's MCP tool
// server, offering the tools the prompt's `@tool` lines name), as `npm start` runs it. A provider
// that cannot be reached is the model stand-in's `@drop` (it closes the connection unanswered), so
// that case needs no system of its own.
import { INTERNAL_VIEW_HEADER, type InternalRun } from '@ars/contract';
import { ownSystem, waitFor } from '@ars/testenv';
import { STAND_IN_KEY } from '@ars/stack';
import { call, dataOf } from '../support/accounts.js';
import { automationClient, graphOf, startAutomation, untilRun } from '../support/automations.js';
import { firstReview, reviewedRepo, untilAttemptEnded } from '../support/prReviews.js';
import { SandboxesClient } from '../support/sandboxes.js';
import { git, harnessPid, newRunsUser, processAlive, sourceRepositoryPath, type RunEvent } from '../support/runs.js';

/**
 * The services' lines (at info, the access log left out), kept so that a run whose wait times out
 * tells its story: a CI run saw real-CLI runs stay streaming 90 s after their `completed` event, with
 * nothing else to read.
 */
const serviceLines: string[] = [];
function keepServiceLine(line: string): void {
  if (line.includes('"msg":"request"')) return;
  serviceLines.push(line.length > 600 ? `${line.slice(0, 600)}…` : line);
  if (serviceLines.length > 50_000) serviceLines.splice(0, 10_000);
}

/** `waiting`, or its failure with the services' lines naming the run. */
async function told<T>(runId: string, waiting: Promise<T>): Promise<T> {
  try {
    return await waiting;
  } catch (error) {
    const naming = serviceLines.filter((line) => line.includes(runId)).slice(-80);
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\nthe services' lines naming ${runId} (the last ${naming.length}):\n${naming.join('\n')}`,
    );
  }
}

const system = ownSystem(
  'the real Codex and Claude Code CLIs against the model stand-in (HARNESS_CLIS=real)',
  {
    HARNESS_CLIS: 'real',
    HARNESS_STAND_IN_TOOLS: 'on',
    // Far above any other test's runs (a few hundred tokens each); the budget test's one prompt passes it.
    RUN_TOKEN_BUDGET: '20000',
  },
  () => ({ logLevel: 'info', output: keepServiceLine }),
);

/** The run as the system's own callers read it: its usage. */
async function internalRun(userId: string, runId: string): Promise<InternalRun> {
  const answer = await call<{ run: InternalRun }>(
    `${system().stack.services.runs.url}/internal/users/${encodeURIComponent(userId)}/runs/${encodeURIComponent(runId)}`,
    {
      headers: { 'x-internal-token': system().internalToken, 'x-caller-service': 'tests', [INTERNAL_VIEW_HEADER]: 'true' },
    },
  );
  return dataOf(answer).run;
}

// What a test may take, as budgets over its waits (each run's own wait is 90 s and says which run
// never ended): a real CLI run is a few seconds alone, far longer with every suite's processes
// sharing two cores. Jest's default 60 s would cut a test off before its own waits could say why.
const ONE_RUN_TEST_MS = 150_000;
/** A wait in the queue (its own 90 s), then one run. */
const QUEUED_THEN_ONE_RUN_TEST_MS = 200_000;
/** Three runs, one after another. */
const FOLLOW_UP_TEST_MS = 300_000;

const SHELL_TOOL = { codex: 'shell', 'claude-code': 'Bash' } as const;
const messagesOf = (events: RunEvent[]): (string | null)[] => events.filter((e) => e.type === 'assistant_message').map((e) => e.message);

describe.each(['codex', 'claude-code'] as const)('%s: the real CLI runs every directive with the same events as the stand-ins', (harness) => {
  test.concurrent(
    '@say twice: stream_started first ({}), each line its own assistant_message in order; success; runtime.provider local',
    async () => {
      const { runs, repoId } = await newRunsUser(system().baseUrl);
      const run = await runs.started({ repoId, harness, prompt: 'Say hello.\n@say first line\n@say second line' });
      const { run: done, events } = await told(run.runId, runs.waitFor(run.runId, undefined, 90_000));
      expect([done.status, done.error]).toEqual(['success', null]);
      expect(done.runtime.provider).toBe('local');
      expect(events[0]).toMatchObject({ type: 'stream_started', payload: {} });
      expect(messagesOf(events).slice(0, 2)).toEqual(['first line', 'second line']);
      expect(events.at(-1)?.type).toBe('completed');
    },
    ONE_RUN_TEST_MS,
  );

  test.concurrent(
    '@shell: the command really runs in the sandbox, its output in the tool_call event',
    async () => {
      const { runs, repoId } = await newRunsUser(system().baseUrl);
      const run = await runs.started({ repoId, harness, prompt: '@shell echo real-$((6*7)) && cat README.md' });
      const { run: done, events } = await told(run.runId, runs.waitFor(run.runId, undefined, 90_000));
      expect(done).toMatchObject({ status: 'success' });
      const shell = events.find((e) => e.type === 'tool_call' && e.toolName === SHELL_TOOL[harness]);
      expect(JSON.stringify(shell?.payload)).toContain('real-42');
    },
    ONE_RUN_TEST_MS,
  );

  test.concurrent(
    '@tool: one tool_call named exactly as the tool, the JSON as its input, called through the MCP tool server',
    async () => {
      const { runs, repoId } = await newRunsUser(system().baseUrl);
      const run = await runs.started({ repoId, harness, prompt: '@tool search {"q":"docs","n":[1,2]}\n@say after the tool' });
      const { run: done, events } = await told(run.runId, runs.waitFor(run.runId, undefined, 90_000));
      expect([done.status, done.error]).toEqual(['success', null]);
      const calls = events.filter((e) => e.type === 'tool_call');
      expect(calls.map((e) => e.toolName)).toEqual(['search']);
      expect(calls[0]?.payload).toMatchObject({ kind: 'mcp', server: 'standin', input: { q: 'docs', n: [1, 2] } });
      // The tool's answer: Claude Code gives its text; codex its MCP result, which the event keeps in outline.
      expect(calls[0]?.payload).toMatchObject(harness === 'codex' ? { status: 'completed' } : { output: 'stand-in tool search called', isError: false });
      expect(messagesOf(events)).toContain('after the tool');
    },
    ONE_RUN_TEST_MS,
  );

  test.concurrent(
    '@write with createBranch: the CLI’s own write tool makes the file, committed on the working branch',
    async () => {
      const { runs, account, repoId } = await newRunsUser(system().baseUrl);
      const run = await runs.started({ repoId, harness, createBranch: true, prompt: '@write notes/real.txt written by a real CLI\\n' });
      const { run: done, events } = await told(run.runId, runs.waitFor(run.runId, undefined, 90_000));
      expect(done).toMatchObject({ status: 'success' });
      expect(events.find((e) => e.type === 'file_change')?.payload).toEqual({ changes: [{ path: 'notes/real.txt', kind: 'add' }] });
      const bare = await sourceRepositoryPath(system().stack.services.catalog.url, system().internalToken, account, repoId);
      expect(await git(['--git-dir', bare, 'show', `refs/heads/${run.branch.working}:notes/real.txt`])).toBe('written by a real CLI\n');
    },
    ONE_RUN_TEST_MS,
  );

  test.concurrent(
    '@fail: a provider error the CLI does not retry ends the run failed, its message in run.error',
    async () => {
      const { runs, repoId } = await newRunsUser(system().baseUrl);
      const run = await runs.started({ repoId, harness, prompt: '@say trying\n@fail the model is out of ideas\n@say never said' });
      const { run: done, events } = await told(run.runId, runs.waitFor(run.runId, undefined, 90_000));
      expect(done.status).toBe('failed');
      expect(done.error).toContain('the model is out of ideas');
      expect(messagesOf(events)).not.toContain('never said');
    },
    ONE_RUN_TEST_MS,
  );

  test.concurrent(
    'cancel during @sleep: cancelled, and the CLI process is gone',
    async () => {
      const { runs, repoId } = await newRunsUser(system().baseUrl);
      const run = await runs.started({ repoId, harness, prompt: '@shell echo harness-pid=$PPID cwd=$PWD\n@sleep 60000\n@say too late' });
      const { events } = await told(
        run.runId,
        runs.waitFor(run.runId, (_r, seen) => harnessPid(seen) !== undefined, 90_000),
      );
      const pid = harnessPid(events) ?? 0;
      expect(processAlive(pid)).toBe(true);
      expect(dataOf(await runs.cancel(run.runId)).status).toBe('cancellation_requested');
      const { run: done, events: all } = await told(run.runId, runs.waitFor(run.runId, undefined, 20_000));
      expect(done.status).toBe('cancelled');
      expect(messagesOf(all)).not.toContain('too late');
      await waitFor(`the CLI's process ${pid} to be gone`, () => !processAlive(pid), 10_000);
    },
    ONE_RUN_TEST_MS,
  );

  test.concurrent(
    'a follow-up with the same conversationId resumes the thread: @recall lists both earlier prompts',
    async () => {
      const { runs, repoId } = await newRunsUser(system().baseUrl);
      const conversationId = `conv-${harness}-${Date.now()}`;
      const sandboxes = new SandboxesClient(system().baseUrl, [runs.token]);
      // What each run's sandbox did with the thread (resumed or new, kept or not, and why): read
      // before the answer, so that a follow-up that forgot says where the thread was lost.
      const threadDecisions = async (run: { runId: string; sandboxRecordId: string | null }): Promise<string[]> =>
        dataOf(await sandboxes.logs(run.sandboxRecordId ?? ''))
          .lifecycle_events.filter((e) => e.event_type.startsWith('thread_') && e.worker_run_id === run.runId)
          .map((e) => `${e.event_type}/${e.decision_code ?? ''}`);
      const decisions: string[][] = [];
      for (const prompt of ['Where is the config read?', 'And who writes it?', '@recall']) {
        const run = await runs.started({ repoId, harness, conversationId, prompt });
        const ended = await told(run.runId, runs.waitFor(run.runId, undefined, 90_000));
        expect(ended.run).toMatchObject({ status: 'success' });
        decisions.push(await threadDecisions({ runId: run.runId, sandboxRecordId: ended.run.sandboxRecordId }));
        if (prompt === '@recall') {
          expect(decisions).toEqual([
            ['thread_new/first_run', 'thread_kept/kept'],
            ['thread_resumed/restored', 'thread_kept/kept'],
            ['thread_resumed/restored', 'thread_kept/kept'],
          ]);
          expect(messagesOf(ended.events)).toContain('Where is the config read?\nAnd who writes it?');
        }
      }
    },
    FOLLOW_UP_TEST_MS,
  );

  test.concurrent(
    'mode read-only: the write is refused (the tree is mounted read-only), the run still ends',
    async () => {
      const { runs, repoId } = await newRunsUser(system().baseUrl);
      const run = await runs.started({ repoId, harness, mode: 'read-only', prompt: '@write blocked.txt nope\n@shell ls blocked.txt 2>&1 || echo absent' });
      const { run: done, events } = await told(run.runId, runs.waitFor(run.runId, undefined, 90_000));
      expect(['success', 'failed']).toContain(done.status);
      expect(events[0]?.message).toContain('read-only');
      expect(events.some((e) => e.type === 'file_change')).toBe(false);
      expect(JSON.stringify(events.filter((e) => e.type === 'tool_call').at(-1)?.payload)).toContain('absent');
    },
    ONE_RUN_TEST_MS,
  );

  test.concurrent(
    'a provider that cannot be reached (@drop: the connection closed unanswered) ends the run failed within a minute, run.error saying so; the CLI is not left retrying',
    async () => {
      const { runs, repoId } = await newRunsUser(system().baseUrl);
      const run = await runs.started({ repoId, harness, prompt: '@drop' });
      // A wait in the sandboxes' queue, behind this suite's other runs, is not the CLI retrying: the
      // wait for the end starts with the CLI (a loaded CI run spent 90 s on both together).
      await told(
        run.runId,
        runs.waitFor(run.runId, (_run, seen) => seen.length > 0, 90_000),
      );
      const { run: done, events } = await told(run.runId, runs.waitFor(run.runId, undefined, 90_000));
      // From the CLI's start to the run's end: the CLI gave up (bounded retries).
      expect(Date.parse(done.updatedAt) - Date.parse(events[0]?.createdAt ?? '')).toBeLessThan(60_000);
      expect(done.status).toBe('failed');
      // The sandbox's model proxy names the configured provider (by its origin); each CLI reports it in its own words around it.
      expect(done.error).toMatch(/the model provider at http:\/\/127\.0\.0\.1:\d+ could not be reached/);
      expect(events[0]).toMatchObject({ type: 'stream_started' });
    },
    QUEUED_THEN_ONE_RUN_TEST_MS,
  );

  test.concurrent(
    'usage: the run’s usage is what the model gateway counted in the provider’s answers, and its usage events add up to it',
    async () => {
      const { runs, account, repoId } = await newRunsUser(system().baseUrl);
      const run = await runs.started({ repoId, harness, prompt: '@say counting' });
      const { run: done, events } = await told(run.runId, runs.waitFor(run.runId, undefined, 90_000));
      expect(done).toMatchObject({ status: 'success' });
      const reports = events.filter((e) => e.type === 'usage').map((e) => e.payload as Record<string, unknown>);
      expect(reports.length).toBeGreaterThan(0);
      // Every report is the gateway's: the CLI's own figures never reach the run.
      for (const report of reports)
        expect(report).toEqual({ inputTokens: expect.any(Number), cachedInputTokens: 0, outputTokens: expect.any(Number), source: 'model_gateway' });
      const sum = (key: string): number => reports.reduce((total, report) => total + Number(report[key]), 0);
      const internal = await internalRun(account.userId, run.runId);
      expect(internal.usage).toEqual({ inputTokens: sum('inputTokens'), cachedInputTokens: 0, outputTokens: sum('outputTokens') });
      expect(internal.usage?.inputTokens).toBeGreaterThan(0);
      expect(internal.usage?.outputTokens).toBeGreaterThan(0);
    },
    ONE_RUN_TEST_MS,
  );

  test.concurrent(
    'the provider key never enters the sandbox: no process environment, no file of the sandbox and no command output holds it; the CLI holds its run’s credential',
    async () => {
      const { runs, repoId } = await newRunsUser(system().baseUrl);
      // The stack's services hold STAND_IN_KEY as CODEX_API_KEY and ANTHROPIC_API_KEY (the model stand-in's key).
      // Searched for as a pattern that does not match its own text: the prompt lands in the CLI's session files.
      const pattern = `${STAND_IN_KEY.slice(0, -1)}[${STAND_IN_KEY.slice(-1)}]`;
      const prompt = [
        `@shell echo "key-in-environments=$(cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c '${pattern}')"`,
        `@shell echo "key-in-files=$(grep -rl '${pattern}' "$(dirname "$HOME")" /tmp /var/tmp /run /etc 2>/dev/null | wc -l)"`,
        `@shell echo "own-run-keys=$(cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c -E '^(CODEX|ANTHROPIC)_API_KEY=ars-run-')"`,
      ].join('\n');
      const run = await runs.started({ repoId, harness, prompt });
      const { run: done, events } = await told(run.runId, runs.waitFor(run.runId, undefined, 90_000));
      expect(done).toMatchObject({ status: 'success' });
      const outputs = events.filter((e) => e.type === 'tool_call' && e.toolName === SHELL_TOOL[harness]).map((e) => JSON.stringify(e.payload));
      expect(outputs).toHaveLength(3);
      const count = (name: string): number => Number(new RegExp(`${name}=(\\d+)`).exec(outputs.join(' '))?.[1] ?? NaN);
      expect([count('key-in-environments'), count('key-in-files')]).toEqual([0, 0]);
      expect(count('own-run-keys')).toBeGreaterThan(0);
      expect(JSON.stringify(events)).not.toContain(STAND_IN_KEY);
    },
    ONE_RUN_TEST_MS,
  );

  test.concurrent(
    'RUN_TOKEN_BUDGET: a run whose answers pass its budget ends failed saying the budget was spent',
    async () => {
      const { runs, account, repoId } = await newRunsUser(system().baseUrl);
      // The model stand-in reports a quarter of the prompt's characters as input tokens: ~22,600 here, over the system's 20,000.
      const prompt = `@say over budget\n${'lorem ipsum '.repeat(7_500)}`;
      const run = await runs.started({ repoId, harness, prompt });
      const { run: done } = await told(run.runId, runs.waitFor(run.runId, undefined, 90_000));
      expect(done.status).toBe('failed');
      expect(done.error).toMatch(/^token budget: the run used \d+ tokens, over its budget of 20000 \(RUN_TOKEN_BUDGET\)$/);
      const internal = await internalRun(account.userId, run.runId);
      expect((internal.usage?.inputTokens ?? 0) + (internal.usage?.outputTokens ?? 0)).toBeGreaterThan(20_000);
    },
    ONE_RUN_TEST_MS,
  );
});

describe('automations and PR reviews run the real CLIs too', () => {
  test.concurrent(
    'a PR review: its findings come from the real CLI’s answer (@finding in .ars/review.md), commented on the pull request',
    async () => {
      const c = await automationClient(system().baseUrl);
      const repos = dataOf(await call<{ repos: { id: string; full_name: string }[] }>(`${c.api}/repos`, { headers: c.auth })).repos;
      const repo = await reviewedRepo(system(), repos.find((candidate) => candidate.id === c.repoId)?.full_name ?? '');
      repo.git('checkout', '--quiet', '-b', 'feature/real-review');
      repo.commitAndPush(
        {
          'app.js': ['const input = process.argv[2];', 'danger(input);', ''].join('\n'),
          '.ars/review.md': ['# Review instructions', '@finding app.js "danger(" high Never pass user input to danger().', ''].join('\n'),
        },
        'Add app.js',
      );
      const pr = await repo.openPullRequest('feature/real-review', 'Add app.js');
      const ended = await untilAttemptEnded(system(), c, (await firstReview(system(), c, pr.number)).id);
      expect([ended.status, ended.error]).toEqual(['completed', null]);
      const detail = dataOf(
        await call<{ run: { reviewFindings: { severity: string; path: string; line: number | null; message: string }[]; aiCalls: { agentRunId: string }[] } }>(
          `${c.api}/automations/${ended.automationId}/runs/${ended.automationRunId ?? ''}`,
          { headers: c.auth },
        ),
      ).run;
      expect(detail.reviewFindings).toEqual([
        expect.objectContaining({ severity: 'high', path: 'app.js', line: 2, message: 'Never pass user input to danger().' }),
      ]);
      // The review's agent run: a real CLI's (a stand-in's runtime.provider would end in /stand-in).
      const agentRunId = detail.aiCalls[0]?.agentRunId ?? '';
      expect(agentRunId).not.toBe('');
      const agentRun = dataOf(await call<{ run: { runtime: { provider: string | null } } }>(`${c.api}/runs/${agentRunId}`, { headers: c.auth })).run;
      expect(agentRun.runtime.provider).toBe('local');
      const comments = await repo.host.listReviewComments(repo.ref, pr.number);
      expect(comments.map((comment) => [comment.path, comment.line])).toContainEqual(['app.js', 2]);
    },
    ONE_RUN_TEST_MS,
  );

  test.concurrent(
    'an automation agent node with a model override: the provider’s request named that model (@model)',
    async () => {
      const c = await automationClient(system().baseUrl);
      const models = dataOf(await call<{ models: { id: string }[] }>(`${c.api}/models`, { headers: c.auth })).models;
      const modelId = models[0]?.id ?? '';
      const graph = graphOf(
        [
          ['start', 'start'],
          ['work', 'agent', { agentId: c.agentId, prompt: '@model', modelId }],
          ['end', 'end'],
        ],
        [
          ['start', 'work'],
          ['work', 'end'],
        ],
      );
      const { automationId, runId } = await startAutomation(c, graph);
      const run = await untilRun(c, automationId, runId, 'ended', (current) => ['success', 'failed', 'cancelled'].includes(current.status), 120_000);
      expect(run).toMatchObject({ status: 'success' });
      const agentRunId = run.nodeRuns.find((node) => node.nodeId === 'work')?.agentRunId ?? '';
      const events = dataOf(await call<{ events: RunEvent[] }>(`${c.api}/runs/${agentRunId}/events`, { headers: c.auth })).events;
      expect(messagesOf(events)).toContain(`model ${modelId}`);
    },
    ONE_RUN_TEST_MS,
  );
});
