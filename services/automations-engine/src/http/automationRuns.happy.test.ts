// The automation run records (list and detail), cancel, and tenancy of both.
import { waitFor } from '@ars/testenv';
import { automationFlows, graphOf, type AutomationFlows } from '../testing/automationFlows.js';
import { startAutomationsHarness, type AutomationsHarness, type AutomationTenant } from '../testing/index.js';

let h: AutomationsHarness;
let flows: AutomationFlows;
let tenant: AutomationTenant;
beforeAll(async () => {
  h = await startAutomationsHarness({ runs: true });
  flows = automationFlows(h);
  tenant = await h.newTenant();
});
afterAll(async () => {
  await h?.stop();
});

const twoAgents = () =>
  graphOf(
    [
      ['start', 'start'],
      ['plan', 'agent', { agentId: tenant.agentId, prompt: 'Plan.', modelId: tenant.modelId }],
      ['pause', 'delay', { seconds: 600 }],
      ['end', 'end'],
    ],
    [
      ['start', 'plan'],
      ['plan', 'pause'],
      ['pause', 'end'],
    ],
  );

describe('the detail: node runs, dispatch events, AI calls with usage and cost, errors', () => {
  test('after an agent node: its node run, its agent run’s usage summed, the dispatch events in order', async () => {
    const { automationId, runId } = await flows.start(tenant, twoAgents(), { ticket: 1 });
    const agentRunId = await flows.agentRunOf(tenant, automationId, runId, 'plan');
    await h.runs?.event(agentRunId, 0, { eventType: 'assistant_message', toolName: null, message: 'The plan.' });
    await h.runs?.finish(agentRunId, {
      status: 'success',
      error: null,
      failure: null,
      eventCount: 1,
      usage: { inputTokens: 1_000_000, cachedInputTokens: 0, outputTokens: 500_000 },
    });
    const run = await flows.until(tenant, automationId, runId, 'the delay waiting', (detail) =>
      detail.nodeRuns.some((node) => node.nodeId === 'pause' && node.status === 'waiting'),
    );
    expect(run).toMatchObject({
      id: runId,
      automationId,
      versionNumber: 1,
      status: 'waiting',
      repoId: tenant.repoIds[0],
      input: { ticket: 1 },
      error: null,
      finishedAt: null,
    });
    expect(run.usage).toEqual({ inputTokens: 1_000_000, cachedInputTokens: 0, outputTokens: 500_000 });
    expect(run.agent).toEqual({ agentIds: [tenant.agentId], agentRuns: 1, running: 0 });
    const models = (
      await h.catalog.call<{ models: { id: string; pricing: { input: number | null; output: number | null } }[] }>(
        'GET',
        `/internal/users/${tenant.userId}/models`,
      )
    ).data.models;
    const pricing = models.find((model) => model.id === tenant.modelId)?.pricing;
    const expectedCost = pricing?.input != null && pricing.output != null ? pricing.input + pricing.output / 2 : null;
    expect(run.aiCalls).toEqual([
      {
        nodeId: 'plan',
        agentRunId,
        agentId: tenant.agentId,
        model: tenant.modelId,
        harness: expect.stringMatching(/^(codex|claude-code)$/),
        status: 'success',
        usage: { inputTokens: 1_000_000, cachedInputTokens: 0, outputTokens: 500_000 },
        costUsd: expectedCost === null ? null : expect.closeTo(expectedCost, 6),
        finishedAt: expect.any(String),
      },
    ]);
    expect(run.costUsd).toEqual(run.aiCalls[0]?.costUsd);
    expect(run.nodeRuns.map((node) => [node.nodeId, node.type, node.status, node.attempt])).toEqual([
      ['start', 'start', 'success', 1],
      ['plan', 'agent', 'success', 1],
      ['pause', 'delay', 'waiting', 1],
    ]);
    expect(run.dispatchEvents.map((event) => event.type)).toEqual([
      'node.success',
      'node.running',
      'run.running',
      'agent_run.started',
      'node.success',
      'node.waiting',
      'run.waiting',
    ]);
    expect(run.dispatchEvents.map((event) => event.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(run.dispatchEventCount).toBe(7);
    expect(run.reviewFindings).toEqual([]);

    const [summary] = await flows.list(tenant, automationId);
    expect(summary).toMatchObject({ id: runId, status: 'waiting', usage: run.usage, costUsd: run.costUsd, latestDispatchEvent: run.dispatchEvents.at(-1) });
    expect(summary?.nodeRuns).toEqual([
      { nodeId: 'start', type: 'start', status: 'success' },
      { nodeId: 'plan', type: 'agent', status: 'success' },
      { nodeId: 'pause', type: 'delay', status: 'waiting' },
    ]);
    expect(summary).not.toHaveProperty('dispatchEvents');
  });
});

describe('cancel: the run ends cancelled, its agent runs cancelled and its timers cleared', () => {
  test('cancelling during an agent node cancels its agent run; cancelling again answers the same', async () => {
    const { automationId, runId } = await flows.start(tenant, twoAgents());
    const agentRunId = await flows.agentRunOf(tenant, automationId, runId, 'plan');
    const cancel = () =>
      h.automations<{ run: { status: string; nodeRuns: { nodeId: string; status: string }[] } }>(
        tenant.userId,
        'POST',
        `/${automationId}/runs/${runId}/cancel`,
      );
    const first = await cancel();
    expect(first.status).toBe(200);
    expect(first.data.run.status).toBe('cancelled');
    expect(first.data.run.nodeRuns.find((node) => node.nodeId === 'plan')?.status).toBe('cancelled');
    expect(h.runs?.sandboxes.cancels.map((entry) => entry.runId)).toContain(agentRunId);
    expect((await cancel()).data.run.status).toBe('cancelled');
    expect(
      (await h.automations<{ automation: { runSummary: { runningCount: number } } }>(tenant.userId, 'GET', `/${automationId}`)).data.automation.runSummary,
    ).toMatchObject({
      lastRunId: runId,
      lastRunStatus: 'cancelled',
      runningCount: 0,
    });
  });

  test('cancelling a waiting delay clears its timer: the run ends cancelled there', async () => {
    const { automationId, runId } = await flows.start(
      tenant,
      graphOf(
        [
          ['start', 'start'],
          ['pause', 'delay', { seconds: 3600 }],
          ['work', 'agent', { agentId: tenant.agentId, prompt: 'Never reached.' }],
          ['end', 'end'],
        ],
        [
          ['start', 'pause'],
          ['pause', 'work'],
          ['work', 'end'],
        ],
      ),
    );
    await waitFor('the delay’s timer', async () => (await h.db.collection('automation_timers').countDocuments({ automationRunId: runId })) === 1);
    expect((await h.automations(tenant.userId, 'POST', `/${automationId}/runs/${runId}/cancel`)).status).toBe(200);
    await waitFor('the delay’s timer cleared', async () => (await h.db.collection('automation_timers').countDocuments({ automationRunId: runId })) === 0);
    const run = await flows.detail(tenant, automationId, runId);
    expect(run.status).toBe('cancelled');
    expect(run.nodeRuns.map((node) => [node.nodeId, node.status])).toEqual([
      ['start', 'success'],
      ['pause', 'cancelled'],
    ]);
    expect(run.aiCalls).toEqual([]);
  });
});

describe('tenancy: another user’s automation run is 404 on every route', () => {
  test('list, detail and cancel answer 404 to another user', async () => {
    const { automationId, runId } = await flows.start(tenant, twoAgents());
    const other = await h.newTenant();
    for (const [method, path] of [
      ['GET', `/${automationId}/runs`],
      ['GET', `/${automationId}/runs/${runId}`],
      ['POST', `/${automationId}/runs/${runId}/cancel`],
    ] as const) {
      const answer = await h.automations(other.userId, method, path);
      expect([method, path, answer.status, answer.body]).toEqual([
        method,
        path,
        404,
        { ok: false, error: { code: 'NOT_FOUND', message: 'Automation not found' } },
      ]);
    }
  });
});

describe('the detail of a run the automation does not have is {run: null} (CONTRACT.md: AutomationRunDetail or null); cancel of one is 404', () => {
  test('a run id of another automation of the caller, and an unknown id: 200 {run: null}; cancelling either is 404 Automation run not found', async () => {
    const { runId } = await flows.start(tenant, twoAgents());
    const another = await flows.publish(tenant, twoAgents());
    for (const id of [runId, 'no-such-run']) {
      const answer = await h.automations(tenant.userId, 'GET', `/${another.id}/runs/${id}`);
      expect([id, answer.status, answer.body]).toEqual([id, 200, { ok: true, data: { run: null } }]);
      const cancel = await h.automations(tenant.userId, 'POST', `/${another.id}/runs/${id}/cancel`);
      expect([id, cancel.status, cancel.body]).toEqual([id, 404, { ok: false, error: { code: 'NOT_FOUND', message: 'Automation run not found' } }]);
    }
  });
});
