import { defaultDraft } from '../domain/defaultDraft.js';
import type { Automation } from '../domain/automationView.js';
import { publishableGraph, startAutomationsHarness, type AutomationsHarness } from '../testing/index.js';

let harness: AutomationsHarness;
beforeAll(async () => {
  harness = await startAutomationsHarness();
});
afterAll(async () => {
  await harness.stop();
});

describe('POST /automations: 201, a new automation is active; without graph a default draft', () => {
  test('only installationId: the default draft, the default name, nulls, not published, zero runs', async () => {
    const tenant = await harness.newTenant();
    const answer = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', '', { installationId: tenant.installationId });
    expect(answer.status).toBe(201);
    const { automation } = answer.data;
    expect(automation).toEqual({
      id: expect.any(String),
      installationId: tenant.installationId,
      name: 'Untitled automation',
      description: null,
      notes: null,
      status: 'active',
      draftGraph: defaultDraft(),
      publishedVersion: null,
      createdAt: expect.any(String),
      updatedAt: automation.createdAt,
      runSummary: { lastRunId: null, lastRunStatus: null, runningCount: 0, pendingCount: 0, failed24h: 0 },
    });
    const read = await harness.automations<{ automation: Automation }>(tenant.userId, 'GET', `/${automation.id}`);
    expect(read.data.automation).toEqual(automation);
  });

  test('name, description, notes and graph are kept; what React Flow adds to a node is dropped', async () => {
    const tenant = await harness.newTenant();
    const graph = publishableGraph(tenant.agentId);
    const sent = { ...graph, nodes: graph.nodes.map((node) => ({ ...node, selected: true, width: 120 })) };
    const answer = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', '', {
      installationId: tenant.installationId,
      name: 'Nightly fixer',
      description: 'Fixes what broke',
      notes: 'Owned by the platform team',
      graph: sent,
    });
    expect(answer.status).toBe(201);
    expect(answer.data.automation).toMatchObject({
      name: 'Nightly fixer',
      description: 'Fixes what broke',
      notes: 'Owned by the platform team',
      draftGraph: graph,
      publishedVersion: null,
    });
  });
});

describe('POST /automations with publish: true applies full validation and publishes version 1', () => {
  test('a publishable graph: publishedVersion 1 holds the draft graph', async () => {
    const tenant = await harness.newTenant();
    const graph = publishableGraph(tenant.agentId);
    const answer = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', '', {
      installationId: tenant.installationId,
      graph,
      publish: true,
    });
    expect(answer.status).toBe(201);
    expect(answer.data.automation.publishedVersion).toEqual({ id: expect.any(String), versionNumber: 1, graph, createdAt: answer.data.automation.createdAt });
  });
});
