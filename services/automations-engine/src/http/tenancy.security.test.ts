import type { Automation } from '../domain/automationView.js';
import { publishableGraph, startAutomationsHarness, type AutomationsHarness } from '../testing/index.js';

let harness: AutomationsHarness;
beforeAll(async () => {
  harness = await startAutomationsHarness();
});
afterAll(async () => {
  await harness.stop();
});

describe("another user's automation is 404 NOT_FOUND on every route, and nothing of it changes", () => {
  test('GET, PUT, publish, model and validate as a stranger: 404 "Automation not found"; the list shows none of it', async () => {
    const owner = await harness.newTenant();
    const stranger = await harness.newTenant();
    const created = await harness.automations<{ automation: Automation }>(owner.userId, 'POST', '', {
      installationId: owner.installationId,
      graph: publishableGraph(owner.agentId),
    });
    const { id } = created.data.automation;
    const attempts: [string, string, unknown][] = [
      ['GET', `/${id}`, undefined],
      ['PUT', `/${id}`, { name: 'mine now' }],
      ['POST', `/${id}/publish`, undefined],
      ['PUT', `/${id}/model`, { nodeId: 'agent', modelId: stranger.modelId, publish: true }],
      ['POST', `/${id}/validate`, {}],
    ];
    for (const [method, path, body] of attempts) {
      const answer = await harness.automations(stranger.userId, method, path, body);
      expect([method, path, answer.status, answer.body]).toEqual([
        method,
        path,
        404,
        { ok: false, error: { code: 'NOT_FOUND', message: 'Automation not found' } },
      ]);
    }
    const list = await harness.automations<{ automations: unknown[] }>(stranger.userId, 'GET');
    expect(list.data.automations).toEqual([]);
    const read = await harness.automations<{ automation: Automation }>(owner.userId, 'GET', `/${id}`);
    expect(read.data.automation).toEqual(created.data.automation);
  });

  test('an automation id that does not exist is the same 404', async () => {
    const tenant = await harness.newTenant();
    const answer = await harness.automations(tenant.userId, 'GET', '/no-such-automation');
    expect(answer.body).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'Automation not found' } });
  });
});

describe('every internal route needs the internal token: missing or wrong is 401 UNAUTHORIZED', () => {
  test.each([
    ['GET', '/internal/users/u1/automations'],
    ['POST', '/internal/users/u1/automations'],
    ['GET', '/internal/users/u1/automations/a1'],
    ['PUT', '/internal/users/u1/automations/a1'],
    ['POST', '/internal/users/u1/automations/a1/publish'],
    ['PUT', '/internal/users/u1/automations/a1/model'],
    ['POST', '/internal/users/u1/automations/a1/validate'],
  ])('%s %s', async (method, path) => {
    const attempts: Record<string, string>[] = [{}, { 'x-internal-token': 'wrong-token-wrong-token' }];
    for (const headers of attempts) {
      const answer = await harness.call(method, path, method === 'GET' ? undefined : {}, headers);
      expect(answer.status).toBe(401);
      expect(answer.body).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
    }
  });
});
