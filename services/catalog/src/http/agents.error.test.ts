import { startCatalogHarness, type CatalogHarness } from '../testing/catalogHarness.js';

let catalog: CatalogHarness;
beforeAll(async () => {
  catalog = await startCatalogHarness();
});
afterAll(async () => {
  await catalog.stop();
});

describe('the create-agent body is validated: 400 BAD_REQUEST naming the field', () => {
  test.each([
    [{ model: 'gpt-5.1-codex-mini' }, 'name is required'],
    [{ name: 'x' }, 'model is required'],
    [{ name: '', model: 'gpt-5.1-codex-mini' }, 'name must not be empty'],
    [{ name: 'x', model: 'gpt-5.1-codex-mini', slug: 'Not A Slug' }, 'slug has an invalid format'],
    [{ name: 'x', model: 'gpt-5.1-codex-mini', description: 5 }, 'description must be a string or null'],
    [{ name: 'x', model: 'gpt-5.1-codex-mini', preset: true }, 'preset is not allowed'],
    [{ name: 'x', model: 'no-such-model' }, 'model must be a model available to the user (got "no-such-model")'],
  ])('%j → %s', async (body, message) => {
    const answer = await catalog.call('POST', `/internal/users/${catalog.newUser()}/agents`, body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message } });
  });
});

describe('a slug is unique per user: a second agent with the same slug is 409 CONFLICT; another user may use it', () => {
  test('same user conflicts, other user does not', async () => {
    const user = catalog.newUser();
    const body = { name: 'Lint fixer', slug: 'lint-fixer', model: 'gpt-5.1-codex-mini' };
    expect((await catalog.call('POST', `/internal/users/${user}/agents`, body)).status).toBe(201);
    const again = await catalog.call('POST', `/internal/users/${user}/agents`, body);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
    expect((await catalog.call('POST', `/internal/users/${catalog.newUser()}/agents`, body)).status).toBe(201);
  });
});

describe('unknown agents are 404 NOT_FOUND, presets included', () => {
  test.each(['preset:no-such-preset', 'no-such-agent'])('%s', async (id) => {
    const answer = await catalog.call('GET', `/internal/users/${catalog.newUser()}/agents/${id}`);
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });
});
