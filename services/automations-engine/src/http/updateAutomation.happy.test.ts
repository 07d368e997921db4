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
    name: 'Before',
    description: 'kept',
    notes: 'kept too',
  });
  return answer.data.automation;
}

describe('PUT /automations/{id}: omitted fields unchanged', () => {
  test('only name: everything else is as it was; updatedAt moves', async () => {
    const tenant = await harness.newTenant();
    const before = await create(tenant);
    const answer = await harness.automations<{ automation: Automation }>(tenant.userId, 'PUT', `/${before.id}`, { name: 'After' });
    expect(answer.status).toBe(200);
    const after = answer.data.automation;
    expect(after).toEqual({ ...before, name: 'After', updatedAt: expect.any(String) });
    expect(Date.parse(after.updatedAt)).toBeGreaterThanOrEqual(Date.parse(before.updatedAt));
  });

  test('description and notes to null; status inactive and back to active (a documented addition)', async () => {
    const tenant = await harness.newTenant();
    const before = await create(tenant);
    const off = await harness.automations<{ automation: Automation }>(tenant.userId, 'PUT', `/${before.id}`, {
      description: null,
      notes: null,
      status: 'inactive',
    });
    expect(off.data.automation).toMatchObject({ description: null, notes: null, status: 'inactive', name: 'Before' });
    const on = await harness.automations<{ automation: Automation }>(tenant.userId, 'PUT', `/${before.id}`, { status: 'active' });
    expect(on.data.automation.status).toBe('active');
  });
});

describe('PUT /automations/{id}: graph is a complete replacement', () => {
  test('the new graph replaces the draft whole (nodes it lacks are gone); the published version is untouched', async () => {
    const tenant = await harness.newTenant();
    const published = await harness.automations<{ automation: Automation }>(tenant.userId, 'POST', '', {
      installationId: tenant.installationId,
      graph: publishableGraph(tenant.agentId),
      publish: true,
    });
    const { id, publishedVersion } = published.data.automation;
    const replacement = { nodes: [{ id: 'only', type: 'start', position: { x: 1, y: 2 }, data: {} }], edges: [] };
    const answer = await harness.automations<{ automation: Automation }>(tenant.userId, 'PUT', `/${id}`, { graph: replacement });
    expect(answer.data.automation.draftGraph).toEqual(replacement);
    expect(answer.data.automation.publishedVersion).toEqual(publishedVersion);
  });
});

describe('PUT /automations/{id}: an installationId change is re-checked', () => {
  test('another installation of the caller is accepted', async () => {
    const tenant = await harness.newTenant();
    const before = await create(tenant);
    const second = await harness.catalog.devInstallation(tenant.userId);
    const answer = await harness.automations<{ automation: Automation }>(tenant.userId, 'PUT', `/${before.id}`, { installationId: second.installation.id });
    expect(answer.data.automation.installationId).toBe(second.installation.id);
  });
});
