// POST /automations/{id}/trigger: idempotent by key, the run created before the answer, pinned to its version, with the node's model.
import { randomUUID } from 'node:crypto';
import type { Automation } from '../domain/automationView.js';
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

const oneAgent = (prompt: string, extra: Record<string, unknown> = {}) =>
  graphOf(
    [
      ['start', 'start'],
      ['work', 'agent', { agentId: tenant.agentId, prompt, ...extra }],
      ['end', 'end'],
    ],
    [
      ['start', 'work'],
      ['work', 'end'],
    ],
  );

describe('an accepted trigger answers 202 with the automation run it created (jobRunId set)', () => {
  test('the Trigger result: started, the run’s status, the engine as runtime; the run is listed', async () => {
    const automation = await flows.publish(tenant, oneAgent('Go.'));
    const answer = await flows.trigger(tenant, automation.id);
    expect(answer.status).toBe(202);
    const { run } = answer.data;
    expect(run).toEqual({
      automationId: automation.id,
      jobRunId: expect.any(String),
      outcome: 'started',
      reason: null,
      started: true,
      status: 'running',
      runtime: { provider: 'automations-engine', runId: run.jobRunId },
    });
    expect((await flows.list(tenant, automation.id)).map((listed) => listed.id)).toEqual([run.jobRunId]);
  });
});

describe('Idempotency-Key: the same key and body answer the first run; another body is 409 IDEMPOTENCY_CONFLICT', () => {
  test('the same key twice: one run, the second answer replayed', async () => {
    const automation = await flows.publish(tenant, oneAgent('Once.'));
    const key = randomUUID();
    const first = await flows.trigger(tenant, automation.id, { repoId: tenant.repoIds[0], input: { n: 1 } }, key);
    const second = await flows.trigger(tenant, automation.id, { input: { n: 1 }, repoId: tenant.repoIds[0] }, key);
    expect(second.status).toBe(202);
    expect(second.data.run).toMatchObject({ jobRunId: first.data.run.jobRunId, outcome: 'replayed', started: true });
    expect(await flows.list(tenant, automation.id)).toHaveLength(1);
  });

  test('the same key with another input is 409 IDEMPOTENCY_CONFLICT and makes nothing', async () => {
    const automation = await flows.publish(tenant, oneAgent('Once.'));
    const key = randomUUID();
    await flows.trigger(tenant, automation.id, { repoId: tenant.repoIds[0], input: { n: 1 } }, key);
    const conflict = await flows.trigger(tenant, automation.id, { repoId: tenant.repoIds[0], input: { n: 2 } }, key);
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ ok: false, error: { code: 'IDEMPOTENCY_CONFLICT' } });
    expect(await flows.list(tenant, automation.id)).toHaveLength(1);
  });

  test('20 racing triggers with one key make one automation run and one agent run', async () => {
    const automation = await flows.publish(tenant, oneAgent('Race.'));
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 20 }, () => flows.trigger(tenant, automation.id, { repoId: tenant.repoIds[0] }, key)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(202));
    const jobRunIds = new Set(answers.map((answer) => answer.data.run.jobRunId));
    expect(jobRunIds.size).toBe(1);
    expect(answers.filter((answer) => answer.data.run.outcome === 'started')).toHaveLength(1);
    const runId = answers[0]?.data.run.jobRunId as string;
    await flows.agentRunOf(tenant, automation.id, runId, 'work');
    expect(await flows.list(tenant, automation.id)).toHaveLength(1);
  });
});

describe('a run is pinned to the version it was triggered on', () => {
  test('publishing meanwhile changes nothing for it: its agent keeps the old prompt, a new trigger takes the new one', async () => {
    const automation = await flows.publish(tenant, oneAgent('Version one.'));
    const first = (await flows.trigger(tenant, automation.id)).data.run.jobRunId as string;
    const republished = await h.automations<{ automation: Automation }>(tenant.userId, 'PUT', `/${automation.id}`, { graph: oneAgent('Version two.') });
    expect(republished.status).toBe(200);
    expect((await h.automations(tenant.userId, 'POST', `/${automation.id}/publish`)).status).toBe(200);
    const second = (await flows.trigger(tenant, automation.id)).data.run.jobRunId as string;
    const [firstRun, secondRun] = await Promise.all([flows.detail(tenant, automation.id, first), flows.detail(tenant, automation.id, second)]);
    expect([firstRun.versionNumber, secondRun.versionNumber]).toEqual([1, 2]);
    await flows.agentRunOf(tenant, automation.id, first, 'work');
    await flows.agentRunOf(tenant, automation.id, second, 'work');
    const [work1, work2] = await Promise.all([flows.detail(tenant, automation.id, first), flows.detail(tenant, automation.id, second)]);
    expect(work1.nodeRuns.find((node) => node.nodeId === 'work')?.input).toMatchObject({ prompt: 'Version one.' });
    expect(work2.nodeRuns.find((node) => node.nodeId === 'work')?.input).toMatchObject({ prompt: 'Version two.' });
  });
});

describe('the model override reaches the agent run (the runs service’s internal model)', () => {
  test('an agent node with modelId: its agent run has that model; without: the agent’s own', async () => {
    const override = await flows.start(tenant, oneAgent('With a model.', { modelId: tenant.modelId }));
    const plain = await flows.start(tenant, oneAgent('Without.'));
    const overridden = await flows.agentRunOf(tenant, override.automationId, override.runId, 'work');
    const own = await flows.agentRunOf(tenant, plain.automationId, plain.runId, 'work');
    const agents = (await h.catalog.call<{ agents: { id: string; model: string }[] }>('GET', `/internal/users/${tenant.userId}/agents`)).data.agents;
    const agentModel = agents.find((candidate) => candidate.id === tenant.agentId)?.model;
    expect((await h.runs?.internalRun(tenant.userId, overridden))?.model).toBe(tenant.modelId);
    expect((await h.runs?.internalRun(tenant.userId, own))?.model).toBe(agentModel);
  });
});
