// POST /automations/{id}/trigger: every refusal, each with its message, and nothing made.
import { randomUUID } from 'node:crypto';
import { automationFlows, graphOf, type AutomationFlows } from '../testing/automationFlows.js';
import { startAutomationsHarness, type AutomationsHarness, type AutomationTenant } from '../testing/index.js';

let h: AutomationsHarness;
let flows: AutomationFlows;
let tenant: AutomationTenant;
beforeAll(async () => {
  h = await startAutomationsHarness();
  flows = automationFlows(h);
  tenant = await h.newTenant();
});
afterAll(async () => {
  await h?.stop();
});

const graph = (startData: Record<string, unknown> = {}) =>
  graphOf(
    [
      ['start', 'start', startData],
      ['work', 'agent', { agentId: tenant.agentId, prompt: 'p' }],
      ['end', 'end'],
    ],
    [
      ['start', 'work'],
      ['work', 'end'],
    ],
  );

const errorOf = (answer: { body: unknown }) => (answer.body as { error: { code: string; message: string } }).error;

describe('the key: required, at most 200 characters', () => {
  test('no Idempotency-Key is 400 naming it; 201 characters is 400', async () => {
    const automation = await flows.publish(tenant, graph());
    const path = `/internal/users/${tenant.userId}/automations/${automation.id}/trigger`;
    const missing = await h.call('POST', path, { repoId: tenant.repoIds[0] });
    expect(missing.status).toBe(400);
    expect(errorOf(missing).message).toMatch(/Idempotency-Key/);
    const long = await flows.trigger(tenant, automation.id, { repoId: tenant.repoIds[0] }, 'k'.repeat(201));
    expect(long.status).toBe(400);
    expect(await flows.list(tenant, automation.id)).toEqual([]);
  });
});

describe('the automation: the caller’s (404), active and published (409)', () => {
  test('another user’s automation is 404 Automation not found', async () => {
    const automation = await flows.publish(tenant, graph());
    const other = await h.newTenant();
    const answer = await flows.trigger(other, automation.id, { repoId: other.repoIds[0] });
    expect([answer.status, errorOf(answer)]).toEqual([404, { code: 'NOT_FOUND', message: 'Automation not found' }]);
  });

  test('an inactive automation is 409 CONFLICT', async () => {
    const automation = await flows.publish(tenant, graph());
    await h.automations(tenant.userId, 'PUT', `/${automation.id}`, { status: 'inactive' });
    const answer = await flows.trigger(tenant, automation.id);
    expect([answer.status, errorOf(answer)]).toEqual([
      409,
      { code: 'CONFLICT', message: 'the automation is inactive; set its status to active to trigger it' },
    ]);
    expect(await flows.list(tenant, automation.id)).toEqual([]);
  });

  test('an automation never published is 409 CONFLICT', async () => {
    const created = await h.automations<{ automation: { id: string } }>(tenant.userId, 'POST', '', { installationId: tenant.installationId, graph: graph() });
    const answer = await flows.trigger(tenant, created.data.automation.id);
    expect([answer.status, errorOf(answer)]).toEqual([409, { code: 'CONFLICT', message: 'the automation has no published version; publish it first' }]);
  });
});

describe('the repository: the caller’s (404) and of the automation’s installation (400)', () => {
  test('no repoId is 400; an unknown or another user’s repository is 404 Repository not found', async () => {
    const automation = await flows.publish(tenant, graph());
    const none = await flows.trigger(tenant, automation.id, {});
    expect([none.status, errorOf(none).message]).toEqual([400, expect.stringMatching(/repoId/)]);
    const other = await h.newTenant();
    for (const repoId of ['no-such-repo', other.repoIds[0]]) {
      const answer = await flows.trigger(tenant, automation.id, { repoId });
      expect([answer.status, errorOf(answer)]).toEqual([404, { code: 'NOT_FOUND', message: 'Repository not found' }]);
    }
  });

  test('a repository of another installation of the same user is 400 naming it', async () => {
    const automation = await flows.publish(tenant, graph());
    const second = await h.catalog.devInstallation(tenant.userId);
    const repoId = second.repos[0]?.id as string;
    const answer = await flows.trigger(tenant, automation.id, { repoId });
    expect(answer.status).toBe(400);
    expect(errorOf(answer).message).toBe(`repoId "${repoId}" is not a repository of the automation's installation (${tenant.installationId})`);
  });
});

describe('input: checked against the start node’s inputSchema (without one, any JSON object)', () => {
  test('an input the schema refuses is 400 naming the path; not an object is 400', async () => {
    const automation = await flows.publish(
      tenant,
      graph({ inputSchema: { type: 'object', required: ['ticket'], properties: { ticket: { type: 'integer' } } } }),
    );
    const wrong = await flows.trigger(tenant, automation.id, { repoId: tenant.repoIds[0], input: { ticket: 'seven' } });
    expect([wrong.status, errorOf(wrong).message]).toEqual([400, 'input.ticket must be an integer']);
    const missing = await flows.trigger(tenant, automation.id, { repoId: tenant.repoIds[0], input: {} });
    expect([missing.status, errorOf(missing).message]).toEqual([400, expect.stringMatching(/ticket/)]);
    const array = await flows.trigger(tenant, automation.id, { repoId: tenant.repoIds[0], input: [1] }, randomUUID());
    expect(array.status).toBe(400);
    expect(await flows.list(tenant, automation.id)).toEqual([]);
  });
});
