import type { AutomationSummary } from '../domain/automationView.js';
import { publishableGraph, startAutomationsHarness, type AutomationsHarness } from '../testing/index.js';

let harness: AutomationsHarness;
beforeAll(async () => {
  harness = await startAutomationsHarness();
});
afterAll(async () => {
  await harness.stop();
});

async function listed(userId: string): Promise<AutomationSummary[]> {
  return (await harness.automations<{ automations: AutomationSummary[] }>(userId, 'GET')).data.automations;
}

describe('POST /automations: installationId a positive safe integer of the caller; every 400 names the field', () => {
  test.each([
    [{}, 'installationId is required'],
    [{ installationId: 0 }, 'installationId must be at least 1'],
    [{ installationId: -3 }, 'installationId must be at least 1'],
    [{ installationId: 1.5 }, 'installationId must be an integer'],
    [{ installationId: '1' }, 'installationId must be an integer'],
    [{ installationId: 2 ** 53 }, 'installationId must be at most 9007199254740991'],
  ])('%j → 400 %s', async (body, message) => {
    const tenant = await harness.newTenant();
    const answer = await harness.automations(tenant.userId, 'POST', '', body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message } });
    expect(await listed(tenant.userId)).toEqual([]);
  });

  test.each([
    ['an empty name', 'name must not be empty', { name: '' }],
    ['a 201-character name', 'name must be at most 200 characters', { name: 'x'.repeat(201) }],
    ['a number description', 'description must be a string or null', { description: 5 }],
    ['20,001 characters of notes', 'notes must be at most 20000 characters', { notes: 'x'.repeat(20_001) }],
    ['a string publish', 'publish must be a boolean', { publish: 'yes' }],
  ])('%s → 400 %s', async (_label, message, fields) => {
    const tenant = await harness.newTenant();
    const answer = await harness.automations(tenant.userId, 'POST', '', { installationId: tenant.installationId, ...fields });
    expect(answer.body).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message } });
  });

  test("another user's installation, or one that does not exist, is 404 and nothing is created", async () => {
    const tenant = await harness.newTenant();
    const other = await harness.newTenant();
    for (const installationId of [other.installationId, 9_000_000_000]) {
      const answer = await harness.automations(tenant.userId, 'POST', '', { installationId });
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'Installation not found' } });
    }
    expect(await listed(tenant.userId)).toEqual([]);
  });

  test('a malformed graph is 400 naming its path; nothing is created', async () => {
    const tenant = await harness.newTenant();
    const answer = await harness.automations(tenant.userId, 'POST', '', { installationId: tenant.installationId, graph: { nodes: 'start', edges: [] } });
    expect(answer.body).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: 'graph.nodes must be an array' } });
    expect(await listed(tenant.userId)).toEqual([]);
  });
});

describe('POST /automations with publish: true: if validation fails, nothing is created', () => {
  test('the default draft (unbound agent) → 400 listing the problem; no automation, no version', async () => {
    const tenant = await harness.newTenant();
    const answer = await harness.automations(tenant.userId, 'POST', '', { installationId: tenant.installationId, publish: true });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      ok: false,
      error: {
        code: 'BAD_REQUEST',
        message: 'graph cannot be published (1 problem): node agent: agent node is not bound to an agent: no agent chosen [UNBOUND_AGENT]',
      },
    });
    expect(await listed(tenant.userId)).toEqual([]);
    expect(await harness.db.collection('automation_versions').countDocuments({})).toBe(0);
  });

  test('an explicit model the user cannot use → 400 UNKNOWN_MODEL; nothing is created', async () => {
    const tenant = await harness.newTenant();
    const graph = publishableGraph(tenant.agentId, { modelId: 'no-such-model' });
    const answer = await harness.automations(tenant.userId, 'POST', '', { installationId: tenant.installationId, graph, publish: true });
    expect(answer.body).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST', message: expect.stringContaining('[UNKNOWN_MODEL]') } });
    expect(await listed(tenant.userId)).toEqual([]);
  });
});
