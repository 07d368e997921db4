import type { Automation } from '../domain/automationView.js';
import { startAutomationsHarness, type AutomationsHarness } from '../testing/index.js';

let harness: AutomationsHarness;
beforeAll(async () => {
  harness = await startAutomationsHarness();
});
afterAll(async () => {
  await harness.stop();
});

describe('POST /automations/{id}/validate: a structurally malformed graph is 400 as on PUT', () => {
  test.each([
    ['nodes null', 'graph.nodes must be an array', { nodes: null, edges: [] }],
    ['a node without position', 'graph.nodes[0].position is required', { nodes: [{ id: 'a', type: 'start', data: {} }], edges: [] }],
  ])('%s → 400 %s', async (_label, message, graph) => {
    const tenant = await harness.newTenant();
    const created = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', '', { installationId: tenant.installationId });
    const answer = await harness.automations(tenant.userId, 'POST', `/${created.data.automation.id}/validate`, { graph });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message } });
  });
});
