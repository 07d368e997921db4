import { startCatalogHarness, type CatalogHarness } from '../testing/catalogHarness.js';

let catalog: CatalogHarness;
beforeAll(async () => {
  catalog = await startCatalogHarness();
});
afterAll(async () => {
  await catalog.stop();
});

describe('model settings are validated: 400 BAD_REQUEST naming the field', () => {
  test.each([
    ['/plan', {}, 'plan is required'],
    ['/plan', { plan: 'gold' }, 'plan must be one of free, pro'],
    ['/model-policy/gpt-5.1', { enabled: 'yes' }, 'enabled must be a boolean'],
    ['/model-policy/gpt-5.1', {}, 'enabled is required'],
    ['/provider-keys/openai', {}, 'apiKey is required'],
    ['/provider-keys/openai', { apiKey: '' }, 'apiKey must not be empty'],
    ['/provider-keys/mistral', { apiKey: 'k' }, 'provider must be one of openai, anthropic'],
  ])('PUT %s %j → %s', async (path, body, message) => {
    const answer = await catalog.call('PUT', `/internal/users/${catalog.newUser()}${path}`, body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message } });
  });

  test('visibility needs a boolean `visible`', async () => {
    const answer = await catalog.call('PUT', '/internal/models/gpt-5.1/visibility', { visible: 1 });
    expect(answer.body).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: 'visible must be a boolean' } });
  });
});

describe('an unknown model is 404 NOT_FOUND', () => {
  test.each([
    ['GET', '/internal/users/u1/models/no-such-model', undefined],
    ['PUT', '/internal/users/u1/model-policy/no-such-model', { enabled: true }],
    ['PUT', '/internal/models/no-such-model/visibility', { visible: true }],
  ])('%s %s', async (method, path, body) => {
    const answer = await catalog.call(method, path, body);
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });
});
