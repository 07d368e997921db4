import { gitIn, startSandboxesKit, type SandboxesKit } from '../testing/sandboxesKit.js';
import { assertStandInsBuilt } from '../harness/testing.js';
import type { HarnessName } from '../harness/index.js';
import { fakeUsage, parseDirectives } from '@ars/harness-stand-ins';

let kit: SandboxesKit;
beforeAll(async () => {
  assertStandInsBuilt();
  kit = await startSandboxesKit();
  await kit.startService();
});
afterAll(async () => {
  await kit?.stop();
});

const PROMPT = ['@say looking around', '@tool search {"q":"readme"}', '@shell echo hello', '@say done'].join('\n');

describe('a requested run streams every harness event in order, then run.finished success last', () => {
  test.each<[HarnessName, string]>([
    ['codex', 'shell'],
    ['claude-code', 'Bash'],
  ])(
    '%s: sandbox allocated, stream_started first, tool calls in order, seq contiguous, success with the event count; the finish of a session that had a sandbox carries its allocation',
    async (harness, shellTool) => {
      const repo = await kit.newRepo();
      const request = await kit.requestRun(repo, PROMPT, { harness });
      const finished = await kit.waitFinished(request.runId);
      const { allocated, events } = kit.messages(request.runId);

      expect(finished).toMatchObject({ runId: request.runId, status: 'success', error: null, failure: null, eventCount: events.length });
      expect((finished as { messageId?: string }).messageId).toBe(`${request.runId}:finished`);
      expect(allocated).toHaveLength(1);
      expect(allocated[0]).toEqual({
        runId: request.runId,
        sandboxRecordId: expect.stringMatching(/^sbx_/),
        sandboxId: expect.stringMatching(/^local-/),
        runtime: { provider: 'local/stand-in', runId: expect.stringMatching(/^ses_/) },
      });
      // Runs may read the finish before the allocation (another topic): the finish names the sandbox too.
      const { runId: _runId, ...allocation } = allocated[0]!;
      expect(finished).toMatchObject(allocation);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
      expect(kit.messages(request.runId).eventIds).toEqual(events.map((_, i) => `${request.runId}:event:${i}`));
      expect(events[0]?.eventType).toBe('stream_started');
      expect(events.at(-1)?.eventType).toBe('completed');
      const tools = events.filter((e) => e.eventType === 'tool_call');
      expect(tools.map((e) => e.toolName)).toEqual(['search', shellTool]);
      expect(tools[1]?.payload).toMatchObject({ kind: 'shell', exitCode: 0 });
      expect(String(tools[1]?.payload.output)).toContain('hello');
      expect(events.filter((e) => e.eventType === 'assistant_message').map((e) => e.message)).toEqual(['looking around', 'done']);

      // The sandbox record follows the session: stopped after the run, its lifecycle recorded.
      const record = await kit.service!.deps.sandboxRecords.get(repo.userId, allocated[0]!.sandboxRecordId);
      expect(record).toMatchObject({
        status: 'stopped',
        repo_id: repo.repoId,
        base_branch: 'main',
        working_branch: 'main',
        error: null,
        sandbox_id: allocated[0]!.sandboxId,
      });
      const lifecycle = await kit.service!.deps.sandboxRecords.lifecycleOf(allocated[0]!.sandboxRecordId);
      expect(lifecycle.map((e) => e.event_type)).toEqual(['provisioning', 'limits', 'ready', 'stopped']);
      // `limits` and `ready` are written together, each with its own number, in order.
      expect(lifecycle.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    },
  );
});

describe('the run’s model reaches its harness, and run.finished carries the run’s usage totals', () => {
  test.each<HarnessName>(['codex', 'claude-code'])('%s: @model answers the requested model; usage is the stand-in’s report summed', async (harness) => {
    const repo = await kit.newRepo();
    const prompt = '@model\n@say done';
    const request = await kit.requestRun(repo, prompt, { harness, model: 'model-of-the-run' });
    const finished = await kit.waitFinished(request.runId);
    const { events } = kit.messages(request.runId);
    expect(events.filter((e) => e.eventType === 'assistant_message').map((e) => e.message)).toEqual(['model model-of-the-run', 'done']);
    const expected = fakeUsage(prompt, parseDirectives(prompt));
    expect(finished).toMatchObject({ status: 'success', usage: { inputTokens: expected.input, cachedInputTokens: 0, outputTokens: expected.output } });
  });

  test('without a model the harness runs its default; a failed run still reports the usage it spent', async () => {
    const repo = await kit.newRepo();
    const request = await kit.requestRun(repo, '@model\n@fail out of ideas', { harness: 'claude-code' });
    const finished = await kit.waitFinished(request.runId);
    const { events } = kit.messages(request.runId);
    expect(events.filter((e) => e.eventType === 'assistant_message').map((e) => e.message)).toEqual(['model (default)']);
    expect(finished).toMatchObject({
      status: 'failed',
      failure: 'agent',
      usage: { inputTokens: expect.any(Number), cachedInputTokens: 0, outputTokens: expect.any(Number) },
    });
  });
});

describe('with a working branch of its own, the agent’s changes are committed and pushed to the source repository', () => {
  test('@write + createBranch leaves one commit with the file on the working branch; the base branch is unchanged', async () => {
    const repo = await kit.newRepo();
    const baseBefore = gitIn(repo.barePath, 'rev-parse', 'refs/heads/main');
    const request = await kit.requestRun(repo, '@write notes/agent.txt written by the agent\n@say wrote it', {
      harness: 'claude-code',
      branch: { base: 'main', working: 'ars/agent-change', createBranch: true },
    });
    const finished = await kit.waitFinished(request.runId);
    expect(finished).toMatchObject({ status: 'success', failure: null });
    expect(gitIn(repo.barePath, 'rev-parse', 'refs/heads/main')).toBe(baseBefore);
    expect(gitIn(repo.barePath, 'rev-parse', 'refs/heads/ars/agent-change^')).toBe(baseBefore);
    expect(gitIn(repo.barePath, 'show', 'refs/heads/ars/agent-change:notes/agent.txt')).toBe('written by the agent');
    expect(gitIn(repo.barePath, 'log', '-1', '--format=%an <%ae>|%s', 'refs/heads/ars/agent-change')).toBe(
      `Agent Run Service <agent@ars.local>|Agent run ${request.runId}`,
    );
  });

  test('an existing working branch is checked out and the new commit goes on top of it', async () => {
    const repo = await kit.newRepo();
    const first = await kit.requestRun(repo, '@write one.txt first', { branch: { base: 'main', working: 'feature/x', createBranch: true } });
    expect(await kit.waitFinished(first.runId)).toMatchObject({ status: 'success' });
    const tip = gitIn(repo.barePath, 'rev-parse', 'refs/heads/feature/x');
    const second = await kit.requestRun(repo, '@shell cat one.txt\n@write two.txt second', {
      branch: { base: 'main', working: 'feature/x', createBranch: false },
    });
    expect(await kit.waitFinished(second.runId)).toMatchObject({ status: 'success' });
    const shell = kit.messages(second.runId).events.find((e) => e.eventType === 'tool_call');
    expect(String(shell?.payload.output)).toContain('first');
    expect(gitIn(repo.barePath, 'rev-parse', 'refs/heads/feature/x^')).toBe(tip);
    expect(gitIn(repo.barePath, 'show', 'refs/heads/feature/x:two.txt')).toBe('second');
  });

  test('working on the base branch itself pushes nothing', async () => {
    const repo = await kit.newRepo();
    const before = gitIn(repo.barePath, 'rev-parse', 'refs/heads/main');
    const request = await kit.requestRun(repo, '@write x.txt local only');
    expect(await kit.waitFinished(request.runId)).toMatchObject({ status: 'success' });
    expect(gitIn(repo.barePath, 'rev-parse', 'refs/heads/main')).toBe(before);
  });
});

describe('a redelivered runs.requested never starts a second session', () => {
  test('the same request published again (new message id): one allocation, one event stream, one finish', async () => {
    const repo = await kit.newRepo();
    const request = await kit.requestRun(repo, '@say once\n@sleep 1500');
    await kit.waitFor('the first event', () => kit.messages(request.runId).events.length > 0);
    await kit.requestRun(repo, '@say once\n@sleep 1500', { runId: request.runId }, `${request.runId}:requested-again`);
    await kit.waitFinished(request.runId);
    // Afterwards, too: a late redelivery of a finished run changes nothing.
    await kit.requestRun(repo, '@say once', { runId: request.runId }, `${request.runId}:requested-late`);
    const marker = await kit.requestRun(repo, '@say marker');
    await kit.waitFinished(marker.runId);
    const { allocated, events, finished } = kit.messages(request.runId);
    expect(allocated).toHaveLength(1);
    expect(finished).toHaveLength(1);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
  });
});
