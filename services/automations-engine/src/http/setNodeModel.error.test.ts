import type { Automation } from '../domain/automationView.js';
import { publishableGraph, startAutomationsHarness, type AutomationsHarness, type AutomationTenant } from '../testing/index.js';

let harness: AutomationsHarness;
beforeAll(async () => {
  harness = await startAutomationsHarness();
});
afterAll(async () => {
  await harness.stop();
});

async function create(tenant: AutomationTenant, body: Record<string, unknown> = { graph: publishableGraph(tenant.agentId) }): Promise<Automation> {
  const answer = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', '', { installationId: tenant.installationId, ...body });
  return answer.data.automation;
}

async function unchanged(tenant: AutomationTenant, automation: Automation): Promise<void> {
  const read = await harness.automations<{ automation: Automation }>(tenant.userId, 'GET', `/${automation.id}`);
  expect(read.data.automation).toEqual(automation);
}

describe('PUT /automations/{id}/model: nodeId must exist and be an agent node; 400 naming it, nothing changed', () => {
  test.each([
    ['a node that does not exist', { nodeId: 'ghost', modelId: null }, 'nodeId "ghost" is not a node of the draft'],
    ['a start node', { nodeId: 'start', modelId: null }, 'nodeId "start" is a start node, not an agent node'],
    ['no nodeId', { modelId: null }, 'nodeId is required'],
    ['no modelId', { nodeId: 'agent' }, 'modelId is required'],
    ['an empty modelId', { nodeId: 'agent', modelId: '' }, 'modelId must not be empty'],
  ])('%s → 400', async (_label, body, message) => {
    const tenant = await harness.newTenant();
    const automation = await create(tenant);
    const answer = await harness.automations(tenant.userId, 'PUT', `/${automation.id}/model`, body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message } });
    await unchanged(tenant, automation);
  });
});

describe('PUT /automations/{id}/model: a non-null modelId must be in GET /models', () => {
  test('a model the caller cannot use (pro only) and an unknown one are 400; nothing changed', async () => {
    const tenant = await harness.newTenant();
    const automation = await create(tenant);
    for (const modelId of ['gpt-5.1-codex', 'no-such-model']) {
      const answer = await harness.automations(tenant.userId, 'PUT', `/${automation.id}/model`, { nodeId: 'agent', modelId });
      expect(answer.body).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: `modelId ${JSON.stringify(modelId)} is not one of your models` } });
    }
    await unchanged(tenant, automation);
  });
});

describe('PUT /automations/{id}/model with publish: true is all or nothing', () => {
  test('a draft that cannot be published: 400 listing the problems; the override is not saved either', async () => {
    const tenant = await harness.newTenant();
    const automation = await create(tenant, {});
    const answer = await harness.automations(tenant.userId, 'PUT', `/${automation.id}/model`, { nodeId: 'agent', modelId: tenant.modelId, publish: true });
    expect(answer.body).toEqual({
      ok: false,
      error: {
        code: 'BAD_REQUEST',
        message: 'graph cannot be published (1 problem): node agent: agent node is not bound to an agent: no agent chosen [UNBOUND_AGENT]',
      },
    });
    await unchanged(tenant, automation);
  });
});
