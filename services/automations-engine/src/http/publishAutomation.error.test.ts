import type { Automation } from '../domain/automationView.js';
import type { FlowGraph } from '../domain/flowGraph.js';
import { startAutomationsHarness, type AutomationsHarness } from '../testing/index.js';

let harness: AutomationsHarness;
beforeAll(async () => {
  harness = await startAutomationsHarness();
});
afterAll(async () => {
  await harness.stop();
});

describe('POST /automations/{id}/publish: a refusal lists every problem with its node or edge id (400 BAD_REQUEST); nothing is published', () => {
  test('two starts, no end, an unbound agent, a dangling edge and a model the caller lacks: one message naming each', async () => {
    const tenant = await harness.newTenant();
    const graph: FlowGraph = {
      nodes: [
        { id: 's1', type: 'start', position: { x: 0, y: 0 }, data: {} },
        { id: 's2', type: 'start', position: { x: 0, y: 100 }, data: {} },
        { id: 'a', type: 'agent', position: { x: 200, y: 0 }, data: { agentId: '', modelId: 'gpt-5.1-codex' } },
      ],
      edges: [
        { id: 's1-a', source: 's1', target: 'a' },
        { id: 's2-a', source: 's2', target: 'a' },
        { id: 'a-ghost', source: 'a', target: 'ghost' },
      ],
    };
    const created = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', '', { installationId: tenant.installationId, graph });
    const answer = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', `/${created.data.automation.id}/publish`);
    expect(answer.status).toBe(400);
    const { code, message } = (answer.body as { error: { code: string; message: string } }).error;
    expect(code).toBe('BAD_REQUEST');
    expect(message).toMatch(/^graph cannot be published \(\d+ problems\): /);
    for (const part of [
      'node s1: the graph needs exactly one start node, has 2 [START_COUNT]',
      'node s2: the graph needs exactly one start node, has 2 [START_COUNT]',
      'the graph needs exactly one end node, has none [END_COUNT]',
      'node a: agent node is not bound to an agent: no agent chosen [UNBOUND_AGENT]',
      'node a: model "gpt-5.1-codex" is not one of your models [UNKNOWN_MODEL]',
      'edge a-ghost: edge refers to node "ghost", which does not exist [DANGLING_EDGE]',
    ]) {
      expect(message).toContain(part);
    }
    const read = await harness.automations<{ automation: Automation }>(tenant.userId, 'GET', `/${created.data.automation.id}`);
    expect(read.data.automation).toEqual(created.data.automation);
  });

  test('an agent of another user is not bound: UNBOUND_AGENT names it', async () => {
    const tenant = await harness.newTenant();
    const other = await harness.newTenant();
    const owned = await harness.catalog.call<{ agent: { id: string } }>('POST', `/internal/users/${other.userId}/agents`, {
      name: 'Theirs',
      model: 'gpt-5.1-codex-mini',
    });
    const created = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', '', { installationId: tenant.installationId });
    const graph = created.data.automation.draftGraph;
    const bound = { ...graph, nodes: graph.nodes.map((node) => (node.type === 'agent' ? { ...node, data: { agentId: owned.data.agent.id } } : node)) };
    await harness.automations(tenant.userId, 'PUT', `/${created.data.automation.id}`, { graph: bound });
    const answer = await harness.automations(tenant.userId, 'POST', `/${created.data.automation.id}/publish`);
    expect(answer.body).toEqual({
      ok: false,
      error: {
        code: 'BAD_REQUEST',
        message: `graph cannot be published (1 problem): node agent: agent node is not bound to an agent: agent ${JSON.stringify(owned.data.agent.id)} is not one of your agents [UNBOUND_AGENT]`,
      },
    });
  });
});
