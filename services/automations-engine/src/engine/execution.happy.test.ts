// Each node type does what DESIGN.md says, through HTTP on the engine with the runs service
// in-process: agent runs really start in runs (runs.requested), the test ends them as sandboxes would.
import type { BusMessage, RunFinishedData, RunRequestedData } from '@ars/bus';
import type { RunUsage } from '@ars/contract';
import { waitFor } from '@ars/testenv';
import { handleAgentRunFinished } from '../consumers/agentRunFinished.js';
import type { AutomationRunDetail } from '../domain/automationRunView.js';
import { automationFlows, graphOf, type AutomationFlows, type EdgeSpec, type NodeSpec } from '../testing/automationFlows.js';
import { startAutomationsHarness, type AutomationsHarness, type AutomationTenant } from '../testing/index.js';

let h: AutomationsHarness;
let flows: AutomationFlows;
let tenant: AutomationTenant;
let requested: Map<string, BusMessage<RunRequestedData>>;

beforeAll(async () => {
  h = await startAutomationsHarness({ runs: true });
  flows = automationFlows(h);
  tenant = await h.newTenant();
  requested = (await h.runs?.watchRequested()) ?? new Map();
});
afterAll(async () => {
  await h?.stop();
});

const agent = (prompt: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ agentId: tenant.agentId, prompt, ...extra });
const requestOf = (agentRunId: string) => waitFor(`runs.requested of ${agentRunId}`, () => requested.get(agentRunId)?.data);
const statusOf = (run: { nodeRuns: { nodeId: string; status: string }[] }) => Object.fromEntries(run.nodeRuns.map((node) => [node.nodeId, node.status]));

describe('agent: starts its agent run in runs (its own branch, the automation’s owner) and continues on its success', () => {
  test('start → agent → end: one agent run, its last message the node’s output, the run success', async () => {
    const { automationId, runId } = await flows.start(
      tenant,
      graphOf(
        [
          ['start', 'start'],
          ['fix', 'agent', agent('Fix it.')],
          ['end', 'end'],
        ],
        [
          ['start', 'fix'],
          ['fix', 'end'],
        ],
      ),
    );
    const agentRunId = await flows.agentRunOf(tenant, automationId, runId, 'fix');
    const request = await requestOf(agentRunId);
    expect(request).toMatchObject({ userId: tenant.userId, repoId: tenant.repoIds[0], prompt: 'Fix it.', branch: { createBranch: true } });
    expect(request.branch.working).not.toBe(request.branch.base);
    await flows.finishAgentRun(agentRunId, 'success', 'Fixed the test.');
    const run = await flows.until(tenant, automationId, runId, 'success', (detail) => detail.status === 'success');
    expect(statusOf(run)).toEqual({ start: 'success', fix: 'success', end: 'success' });
    expect(run.nodeRuns.find((node) => node.nodeId === 'fix')).toMatchObject({
      agentRunId,
      output: { runId: agentRunId, status: 'success', lastMessage: 'Fixed the test.', branch: request.branch.working },
    });
    expect(run.aiCalls).toEqual([expect.objectContaining({ nodeId: 'fix', agentRunId, agentId: tenant.agentId, status: 'success' })]);
  });

  test('a failed agent run fails its node and the run, naming the node', async () => {
    const { automationId, runId } = await flows.start(
      tenant,
      graphOf(
        [
          ['start', 'start'],
          ['fix', 'agent', agent('Fix it.')],
          ['end', 'end'],
        ],
        [
          ['start', 'fix'],
          ['fix', 'end'],
        ],
      ),
    );
    await flows.finishAgentRun(await flows.agentRunOf(tenant, automationId, runId, 'fix'), 'failed');
    const run = await flows.until(tenant, automationId, runId, 'failed', (detail) => detail.status === 'failed');
    expect(run.error).toMatch(/^node "fix" failed: agent run .+ failed$/);
    expect(statusOf(run)).toEqual({ start: 'success', fix: 'failed' });
  });
});

describe('condition: follows its "true" or "false" edge on the input; the other side is skipped', () => {
  const simple = () =>
    graphOf(
      [
        ['start', 'start'],
        ['big', 'condition', { expression: 'input.size > 10' }],
        ['yes', 'agent', agent('big')],
        ['no', 'agent', agent('small')],
        ['end', 'end'],
      ],
      [
        ['start', 'big'],
        ['big', 'yes', 'true'],
        ['big', 'no', 'false'],
        ['yes', 'end'],
        ['no', 'end'],
      ],
    );

  test.each([
    [20, 'yes', 'no'],
    [3, 'no', 'yes'],
  ])('input.size %d takes %s and skips %s', async (size, taken, skipped) => {
    const { automationId, runId } = await flows.start(tenant, simple(), { size });
    await flows.finishAgentRun(await flows.agentRunOf(tenant, automationId, runId, taken), 'success', 'ok');
    const run = await flows.until(tenant, automationId, runId, 'success', (detail) => detail.status === 'success');
    expect(statusOf(run)).toMatchObject({ big: 'success', [taken]: 'success', [skipped]: 'skipped', end: 'success' });
    expect(run.nodeRuns.find((node) => node.nodeId === 'big')?.output).toEqual({ result: size > 10 });
    expect(run.aiCalls).toHaveLength(1);
  });
});

describe('set_variable: sets vars.<name>, read by a condition and by a prompt interpolation', () => {
  test('vars.greeting feeds the condition and the agent’s prompt', async () => {
    const { automationId, runId } = await flows.start(
      tenant,
      graphOf(
        [
          ['start', 'start'],
          ['set', 'set_variable', { name: 'greeting', value: '"hello " + input.who' }],
          ['check', 'condition', { expression: 'vars.greeting.startsWith("hello")' }],
          ['say', 'agent', agent('Say {{ vars.greeting }} twice.')],
          ['end', 'end'],
        ],
        [
          ['start', 'set'],
          ['set', 'check'],
          ['check', 'say', 'true'],
          ['check', 'end', 'false'],
          ['say', 'end'],
        ],
      ),
      { who: 'world' },
    );
    const agentRunId = await flows.agentRunOf(tenant, automationId, runId, 'say');
    expect((await requestOf(agentRunId)).prompt).toBe('Say hello world twice.');
    await flows.finishAgentRun(agentRunId, 'success', 'hello world hello world');
    const run = await flows.until(tenant, automationId, runId, 'success', (detail) => detail.status === 'success');
    expect(run.vars).toEqual({ greeting: 'hello world' });
  });
});

describe('parallel and join: every branch starts; all waits for each, any continues with the first and cancels the rest', () => {
  const parallelGraph = (mode: 'all' | 'any') =>
    graphOf(
      [
        ['start', 'start'],
        ['fan', 'parallel'],
        ['a', 'agent', agent('branch a')],
        ['b', 'agent', agent('branch b')],
        ['join', 'join', { mode }],
        ['end', 'end'],
      ],
      [
        ['start', 'fan'],
        ['fan', 'a'],
        ['fan', 'b'],
        ['a', 'join'],
        ['b', 'join'],
        ['join', 'end'],
      ],
    );

  test('join all: two agents, the run ends after both', async () => {
    const { automationId, runId } = await flows.start(tenant, parallelGraph('all'));
    const [a, b] = await Promise.all([flows.agentRunOf(tenant, automationId, runId, 'a'), flows.agentRunOf(tenant, automationId, runId, 'b')]);
    await flows.finishAgentRun(a, 'success', 'a done');
    const waiting = await flows.until(tenant, automationId, runId, 'a done, join waiting', (detail) => statusOf(detail).a === 'success');
    expect(statusOf(waiting)).toMatchObject({ b: 'running', join: 'waiting' });
    expect(waiting.status).toBe('running');
    await flows.finishAgentRun(b, 'success', 'b done');
    const run = await flows.until(tenant, automationId, runId, 'success', (detail) => detail.status === 'success');
    expect(statusOf(run)).toMatchObject({ a: 'success', b: 'success', join: 'success', end: 'success' });
  });

  test('join any: the first agent wins, the other is cancelled (its agent run too)', async () => {
    const { automationId, runId } = await flows.start(tenant, parallelGraph('any'));
    const [a, b] = await Promise.all([flows.agentRunOf(tenant, automationId, runId, 'a'), flows.agentRunOf(tenant, automationId, runId, 'b')]);
    await flows.finishAgentRun(b, 'success', 'b first');
    const run = await flows.until(tenant, automationId, runId, 'success', (detail) => detail.status === 'success');
    expect(statusOf(run)).toMatchObject({ a: 'cancelled', b: 'success', join: 'success', end: 'success' });
    await waitFor('the loser’s agent run cancelled in sandboxes', () => h.runs?.sandboxes.cancels.some((cancel) => cancel.runId === a));
  });
});

describe('AI calls: an agent run’s end is always an AI call of its automation run, once, whatever the run’s state; the totals include it', () => {
  // A join `any` between two priced agents; `after` adds an agent between the join and the end.
  const afterJoin: EdgeSpec[] = [
    ['join', 'c'],
    ['c', 'end'],
  ];
  const raceGraph = (after: boolean) =>
    graphOf(
      [
        ['start', 'start'],
        ['fan', 'parallel'],
        ['a', 'agent', agent('branch a', { modelId: tenant.modelId })],
        ['b', 'agent', agent('branch b', { modelId: tenant.modelId })],
        ['join', 'join', { mode: 'any' }],
        ...(after ? [['c', 'agent', agent('after the join', { modelId: tenant.modelId })] satisfies NodeSpec] : []),
        ['end', 'end'],
      ],
      [['start', 'fan'], ['fan', 'a'], ['fan', 'b'], ['a', 'join'], ['b', 'join'], ...(after ? afterJoin : [['join', 'end'] satisfies EdgeSpec])],
    );
  const usageOf = (tokens: number): RunUsage => ({ inputTokens: tokens, cachedInputTokens: tokens / 10, outputTokens: tokens / 2 });
  const costOf = async (usage: RunUsage): Promise<number> => {
    const { models } = (
      await h.catalog.call<{ models: { id: string; pricing: { input: number | null; output: number | null } }[] }>(
        'GET',
        `/internal/users/${tenant.userId}/models`,
      )
    ).data;
    const pricing = models.find((model) => model.id === tenant.modelId)?.pricing;
    if (pricing?.input == null || pricing.output == null) throw new Error(`model ${tenant.modelId} has no price`);
    return (usage.inputTokens * pricing.input + usage.outputTokens * pricing.output) / 1_000_000;
  };
  const callsOf = (run: AutomationRunDetail, agentRunId: string) => run.aiCalls.filter((call) => call.agentRunId === agentRunId);
  /** runs.finished of the agent run handled again, as a redelivery (or the watchdog's second finish) is. */
  const deliverAgain = (agentRunId: string) =>
    handleAgentRunFinished(h.service.deps, {
      id: `${agentRunId}:finished:again`,
      type: 'run.finished',
      occurredAt: new Date().toISOString(),
      data: { runId: agentRunId, status: 'cancelled', error: null } satisfies RunFinishedData,
    });

  test('the loser of a join any, cancelled and finishing after the run ended, is an AI call (cancelled, its usage and cost) in the totals; the run stays success; a second delivery counts it once', async () => {
    const { automationId, runId } = await flows.start(tenant, raceGraph(false));
    const [a, b] = await Promise.all([flows.agentRunOf(tenant, automationId, runId, 'a'), flows.agentRunOf(tenant, automationId, runId, 'b')]);
    await flows.finishAgentRun(b, 'success', 'b first', usageOf(1_000_000));
    const ended = await flows.until(tenant, automationId, runId, 'success', (detail) => detail.status === 'success');
    await waitFor('the loser’s agent run cancelled in sandboxes', () => h.runs?.sandboxes.cancels.some((cancel) => cancel.runId === a));
    await flows.finishAgentRun(a, 'cancelled', undefined, usageOf(200_000));

    const counted = await flows.until(tenant, automationId, runId, 'the loser’s AI call', (detail) => callsOf(detail, a).length > 0);
    expect(callsOf(counted, a)).toEqual([
      expect.objectContaining({
        nodeId: 'a',
        agentId: tenant.agentId,
        status: 'cancelled',
        usage: usageOf(200_000),
        costUsd: expect.closeTo(await costOf(usageOf(200_000)), 6),
      }),
    ]);
    expect(counted.usage).toEqual({ inputTokens: 1_200_000, cachedInputTokens: 120_000, outputTokens: 600_000 });
    expect(counted.costUsd).toBeCloseTo((await costOf(usageOf(1_000_000))) + (await costOf(usageOf(200_000))), 6);
    // Not reopened: the same status, end, node runs and dispatch events.
    expect(counted).toMatchObject({ status: 'success', finishedAt: ended.finishedAt, dispatchEventCount: ended.dispatchEventCount, nodeRuns: ended.nodeRuns });
    const [summary] = await flows.list(tenant, automationId);
    expect(summary).toMatchObject({ id: runId, status: 'success', usage: counted.usage, costUsd: counted.costUsd });

    await deliverAgain(a);
    expect(await flows.detail(tenant, automationId, runId)).toEqual(counted);
  });

  test('the loser’s finish arriving before the run ends is counted too, once, beside the winner’s and the next agent’s; the run goes on', async () => {
    const { automationId, runId } = await flows.start(tenant, raceGraph(true));
    const [a, b] = await Promise.all([flows.agentRunOf(tenant, automationId, runId, 'a'), flows.agentRunOf(tenant, automationId, runId, 'b')]);
    await flows.finishAgentRun(b, 'success', 'b first', usageOf(1_000_000));
    const c = await flows.agentRunOf(tenant, automationId, runId, 'c');
    await flows.finishAgentRun(a, 'cancelled', undefined, usageOf(200_000));

    const counted = await flows.until(tenant, automationId, runId, 'the loser’s AI call', (detail) => callsOf(detail, a).length > 0);
    expect(counted.status).toBe('running');
    expect(statusOf(counted)).toMatchObject({ a: 'cancelled', b: 'success', join: 'success', c: 'running' });
    expect(callsOf(counted, a)).toEqual([expect.objectContaining({ nodeId: 'a', status: 'cancelled', usage: usageOf(200_000) })]);
    await deliverAgain(a);
    expect(await flows.detail(tenant, automationId, runId)).toEqual(counted);

    await flows.finishAgentRun(c, 'success', 'c done', usageOf(400_000));
    const run = await flows.until(tenant, automationId, runId, 'success', (detail) => detail.status === 'success');
    expect(run.aiCalls.map((call) => [call.nodeId, call.status]).sort()).toEqual([
      ['a', 'cancelled'],
      ['b', 'success'],
      ['c', 'success'],
    ]);
    expect(run.usage).toEqual({ inputTokens: 1_600_000, cachedInputTokens: 160_000, outputTokens: 800_000 });
    expect(run.costUsd).toBeCloseTo((await costOf(usageOf(1_000_000))) + (await costOf(usageOf(200_000))) + (await costOf(usageOf(400_000))), 6);
  });
});

describe('delay: a durable timer; the run waits, then continues', () => {
  test('delay 1 s: waiting, then the next node no sooner than a second after', async () => {
    const { automationId, runId } = await flows.start(
      tenant,
      graphOf(
        [
          ['start', 'start'],
          ['pause', 'delay', { seconds: 1 }],
          ['work', 'agent', agent('After the pause.')],
          ['end', 'end'],
        ],
        [
          ['start', 'pause'],
          ['pause', 'work'],
          ['work', 'end'],
        ],
      ),
    );
    const waiting = await flows.detail(tenant, automationId, runId);
    expect([waiting.status, statusOf(waiting).pause]).toEqual(['waiting', 'waiting']);
    await flows.finishAgentRun(await flows.agentRunOf(tenant, automationId, runId, 'work'), 'success', 'done');
    const run = await flows.until(tenant, automationId, runId, 'success', (detail) => detail.status === 'success');
    const pause = run.nodeRuns.find((node) => node.nodeId === 'pause');
    expect(Date.parse(pause?.endedAt ?? '') - Date.parse(pause?.startedAt ?? '')).toBeGreaterThanOrEqual(1_000);
  });
});

describe('await_event: continues on "received" with the event, or on "timeout"', () => {
  // Both sides meet at the agent, whose prompt says who approved.
  const awaitGraph = () =>
    graphOf(
      [
        ['start', 'start'],
        ['approval', 'await_event', { event: 'approved', match: 'event.data.ticket == input.ticket', timeoutSeconds: 2 }],
        ['note', 'set_variable', { name: 'approver', value: 'event.data.by' }],
        ['late', 'set_variable', { name: 'approver', value: '"nobody"' }],
        ['ship', 'agent', agent('Ship it; approved by {{ vars.approver }}.')],
        ['end', 'end'],
      ],
      [
        ['start', 'approval'],
        ['approval', 'note', 'received'],
        ['approval', 'late', 'timeout'],
        ['note', 'ship'],
        ['late', 'ship'],
        ['ship', 'end'],
      ],
    );
  const shipAndFinish = async (automationId: string, runId: string) => {
    const agentRunId = await flows.agentRunOf(tenant, automationId, runId, 'ship');
    const { prompt } = await requestOf(agentRunId);
    await flows.finishAgentRun(agentRunId, 'success', 'shipped');
    return { prompt, run: await flows.until(tenant, automationId, runId, 'success', (detail) => detail.status === 'success') };
  };

  test('an event of POST /automations/events that matches continues on "received"; one that does not match is left', async () => {
    const { automationId, runId } = await flows.start(tenant, awaitGraph(), { ticket: 7 });
    const send = (data: unknown) => h.automations<{ deliveredTo: number }>(tenant.userId, 'POST', '/events', { name: 'approved', data });
    expect((await send({ ticket: 8, by: 'mallory' })).status).toBe(202);
    expect((await send({ ticket: 7, by: 'alice' })).status).toBe(202);
    const { prompt, run } = await shipAndFinish(automationId, runId);
    expect(prompt).toBe('Ship it; approved by alice.');
    expect(run.vars).toEqual({ approver: 'alice' });
    expect(statusOf(run)).toMatchObject({ approval: 'success', note: 'success', late: 'skipped', ship: 'success' });
    expect(run.events.map((event) => [event.name, event.consumedBy])).toEqual(expect.arrayContaining([['approved', 'approval']]));
  });

  test('no event in timeoutSeconds continues on "timeout"', async () => {
    const { automationId, runId } = await flows.start(tenant, awaitGraph(), { ticket: 9 });
    const { prompt, run } = await shipAndFinish(automationId, runId);
    expect(prompt).toBe('Ship it; approved by nobody.');
    expect(run.vars).toEqual({ approver: 'nobody' });
    expect(statusOf(run)).toMatchObject({ approval: 'success', note: 'skipped', late: 'success' });
  });

  test('another user’s event never reaches the run', async () => {
    const other = await h.newTenant();
    const { automationId, runId } = await flows.start(tenant, awaitGraph(), { ticket: 11 });
    const answer = await h.automations<{ deliveredTo: number }>(other.userId, 'POST', '/events', { name: 'approved', data: { ticket: 11, by: 'eve' } });
    expect(answer.data.deliveredTo).toBe(0);
    const { run } = await shipAndFinish(automationId, runId);
    expect(run.vars).toEqual({ approver: 'nobody' });
  });
});
