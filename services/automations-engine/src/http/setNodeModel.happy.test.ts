import type { Automation } from '../domain/automationView.js';
import { publishableGraph, startAutomationsHarness, type AutomationsHarness, type AutomationTenant } from '../testing/index.js';

let harness: AutomationsHarness;
beforeAll(async () => {
  harness = await startAutomationsHarness();
});
afterAll(async () => {
  await harness.stop();
});

async function create(tenant: AutomationTenant): Promise<Automation> {
  const answer = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', '', {
    installationId: tenant.installationId,
    graph: publishableGraph(tenant.agentId),
  });
  return answer.data.automation;
}

const agentData = (automation: Automation) => automation.draftGraph.nodes.find((node) => node.id === 'agent')?.data;

describe('PUT /automations/{id}/model: a model of GET /models sets the agent node’s override; null clears it', () => {
  test('set, then clear: only the agent node’s modelId changes; nothing is published', async () => {
    const tenant = await harness.newTenant();
    const automation = await create(tenant);
    const set = await harness.automations<{ automation: Automation }>(tenant.userId, 'PUT', `/${automation.id}/model`, {
      nodeId: 'agent',
      modelId: tenant.modelId,
    });
    expect(set.status).toBe(200);
    expect(agentData(set.data.automation)).toEqual({ ...agentData(automation), modelId: tenant.modelId });
    expect(set.data.automation.publishedVersion).toBeNull();
    const cleared = await harness.automations<{ automation: Automation }>(tenant.userId, 'PUT', `/${automation.id}/model`, { nodeId: 'agent', modelId: null });
    expect(cleared.data.automation.draftGraph).toEqual(automation.draftGraph);
  });
});

describe('PUT /automations/{id}/model with publish: true publishes the result', () => {
  test('the new version holds the override; the draft too', async () => {
    const tenant = await harness.newTenant();
    const automation = await create(tenant);
    const answer = await harness.automations<{ automation: Automation }>(tenant.userId, 'PUT', `/${automation.id}/model`, {
      nodeId: 'agent',
      modelId: tenant.modelId,
      publish: true,
    });
    const { draftGraph, publishedVersion } = answer.data.automation;
    expect(publishedVersion).toMatchObject({ versionNumber: 1, graph: draftGraph });
    expect(agentData(answer.data.automation)).toMatchObject({ modelId: tenant.modelId });
  });
});
