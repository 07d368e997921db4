import type { Automation } from '../domain/automationView.js';
import { publishableGraph, startAutomationsHarness, type AutomationsHarness } from '../testing/index.js';

let harness: AutomationsHarness;
beforeAll(async () => {
  harness = await startAutomationsHarness();
});
afterAll(async () => {
  await harness.stop();
});

const node = (id: string) => ({ id, type: 'start', position: { x: 0, y: 0 }, data: {} });

describe('PUT /automations/{id}: a malformed graph is 400 BAD_REQUEST naming the path, draft unchanged', () => {
  test.each([
    ['nodes not an array', 'graph.nodes must be an array', { nodes: {}, edges: [] }],
    ['edges a string', 'graph.edges must be an array', { nodes: [], edges: 'none' }],
    ['graph null', 'graph must be an object', null],
    ['graph a string', 'graph must be an object', 'start → end'],
    ['a partial object', 'graph.edges is required', { nodes: [] }],
    ['an unknown node type', 'graph.nodes[0].type must be one of', { nodes: [{ ...node('a'), type: 'webhook' }], edges: [] }],
    ['a node without position', 'graph.nodes[0].position is required', { nodes: [{ id: 'a', type: 'start', data: {} }], edges: [] }],
    ['an edge without target', 'graph.edges[0].target is required', { nodes: [node('a')], edges: [{ id: 'e', source: 'a' }] }],
    ['a zero zoom', 'graph.viewport.zoom must be a finite number greater than 0', { nodes: [], edges: [], viewport: { x: 0, y: 0, zoom: 0 } }],
  ])('%s → 400 %s', async (_label, message, graph) => {
    const tenant = await harness.newTenant();
    const created = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', '', {
      installationId: tenant.installationId,
      graph: publishableGraph(tenant.agentId),
    });
    const { id, draftGraph } = created.data.automation;
    const answer = await harness.automations(tenant.userId, 'PUT', `/${id}`, { name: 'changed?', graph });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: expect.stringContaining(message) } });
    const read = await harness.automations<{ automation: Automation }>(tenant.userId, 'GET', `/${id}`);
    expect(read.data.automation).toEqual(created.data.automation);
    expect(read.data.automation.draftGraph).toEqual(draftGraph);
  });

  test('a zoom that is not finite (JSON 1e999) is 400 naming graph.viewport.zoom', async () => {
    const tenant = await harness.newTenant();
    const created = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', '', { installationId: tenant.installationId });
    const raw = '{"graph":{"nodes":[],"edges":[],"viewport":{"x":0,"y":0,"zoom":1e999}}}';
    const answer = await fetch(`${harness.url}/internal/users/${tenant.userId}/automations/${created.data.automation.id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-internal-token': harness.token, 'x-caller-service': 'automations-test' },
      body: raw,
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: 'graph.viewport.zoom must be a finite number greater than 0' } });
  });
});

describe('PUT /automations/{id}: other fields are 400 naming the field, nothing changed', () => {
  test.each([
    ['an unknown status', 'status must be one of active, inactive', { status: 'paused' }],
    ['a null name', 'name must be a string', { name: null }],
    ['a zero installationId', 'installationId must be at least 1', { installationId: 0 }],
  ])('%s → 400 %s', async (_label, message, body) => {
    const tenant = await harness.newTenant();
    const created = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', '', { installationId: tenant.installationId });
    const answer = await harness.automations(tenant.userId, 'PUT', `/${created.data.automation.id}`, body);
    expect(answer.body).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message } });
  });

  test("another user's installationId is 404 and the automation keeps its own", async () => {
    const tenant = await harness.newTenant();
    const other = await harness.newTenant();
    const created = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', '', { installationId: tenant.installationId });
    const answer = await harness.automations(tenant.userId, 'PUT', `/${created.data.automation.id}`, { installationId: other.installationId, name: 'moved' });
    expect(answer.body).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'Installation not found' } });
    const read = await harness.automations<{ automation: Automation }>(tenant.userId, 'GET', `/${created.data.automation.id}`);
    expect(read.data.automation).toEqual(created.data.automation);
  });
});
