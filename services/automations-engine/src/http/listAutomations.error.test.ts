import { startAutomationsHarness, type AutomationsHarness } from '../testing/index.js';

let harness: AutomationsHarness;
beforeAll(async () => {
  harness = await startAutomationsHarness();
});
afterAll(async () => {
  await harness.stop();
});

describe('GET /automations: a limit that is not an integer, or a cursor this service did not make, is 400 naming it', () => {
  test.each([
    ['?limit=ten', 'limit must be an integer'],
    ['?limit=1.5', 'limit must be an integer'],
    ['?cursor=not-a-cursor', 'cursor is invalid (send a nextCursor unchanged)'],
    [`?cursor=${Buffer.from('{"a":1}').toString('base64url')}`, 'cursor is invalid (send a nextCursor unchanged)'],
  ])('%s → 400 %s', async (query, message) => {
    const tenant = await harness.newTenant();
    const answer = await harness.automations(tenant.userId, 'GET', query);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message } });
  });
});
