import type { Automation } from '../domain/automationView.js';
import type { Problem } from '../domain/publishChecks.js';
import { publishableGraph, startAutomationsHarness, type AutomationsHarness } from '../testing/index.js';

let harness: AutomationsHarness;
beforeAll(async () => {
  harness = await startAutomationsHarness();
});
afterAll(async () => {
  await harness.stop();
});

type Validation = { valid: boolean; problems: Problem[] };

describe('POST /automations/{id}/validate: no body → the draft; 200 {valid, problems}; never changes anything', () => {
  test('the default draft: one UNBOUND_AGENT problem on node agent; the automation is as it was', async () => {
    const tenant = await harness.newTenant();
    const created = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', '', { installationId: tenant.installationId });
    const { id } = created.data.automation;
    const answer = await harness.automations<Validation>(tenant.userId, 'POST', `/${id}/validate`);
    expect(answer.status).toBe(200);
    expect(answer.data).toEqual({
      valid: false,
      problems: [{ nodeId: 'agent', code: 'UNBOUND_AGENT', message: 'agent node is not bound to an agent: no agent chosen' }],
    });
    const read = await harness.automations<{ automation: Automation }>(tenant.userId, 'GET', `/${id}`);
    expect(read.data.automation).toEqual(created.data.automation);
  });
});

describe('POST /automations/{id}/validate: body {graph} → that graph, after the structural check', () => {
  test('a publishable graph is valid with no problems; the draft and the published version stay as they were', async () => {
    const tenant = await harness.newTenant();
    const created = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', '', { installationId: tenant.installationId });
    const { id } = created.data.automation;
    const answer = await harness.automations<Validation>(tenant.userId, 'POST', `/${id}/validate`, { graph: publishableGraph(tenant.agentId) });
    expect(answer.data).toEqual({ valid: true, problems: [] });
    const read = await harness.automations<{ automation: Automation }>(tenant.userId, 'GET', `/${id}`);
    expect(read.data.automation).toEqual(created.data.automation);
  });

  test('problems carry their node or edge id and code', async () => {
    const tenant = await harness.newTenant();
    const created = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', '', { installationId: tenant.installationId });
    const graph = publishableGraph(tenant.agentId);
    graph.edges.push({ id: 'dangling', source: 'agent', target: 'nowhere' });
    const answer = await harness.automations<Validation>(tenant.userId, 'POST', `/${created.data.automation.id}/validate`, { graph });
    expect(answer.data.valid).toBe(false);
    expect(answer.data.problems).toEqual([{ edgeId: 'dangling', code: 'DANGLING_EDGE', message: 'edge refers to node "nowhere", which does not exist' }]);
  });
});
