import { startCatalogHarness, type CatalogHarness } from '../testing/catalogHarness.js';

let catalog: CatalogHarness;
beforeAll(async () => {
  catalog = await startCatalogHarness();
});
afterAll(async () => {
  await catalog.stop();
});

describe('a non-integer limit is 400 BAD_REQUEST naming limit', () => {
  test.each(['abc', '1.5', '10x'])('limit=%s', async (limit) => {
    const answer = await catalog.call('GET', `/internal/users/${catalog.newUser()}/repos?limit=${limit}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: 'limit must be an integer' } });
  });
});

describe('the dev installation body is validated: 400 naming the field', () => {
  test.each([
    [{}, 'userId is required'],
    [{ userId: '' }, 'userId must not be empty'],
    [{ userId: 'u', repoCount: 1 }, 'repoCount must be at least 2'],
    [{ userId: 'u', repoCount: 2.5 }, 'repoCount must be an integer'],
    [{ userId: 'u', extra: true }, 'extra is not allowed'],
  ])('%j → %s', async (body, message) => {
    const answer = await catalog.call('POST', '/internal/dev/installations', body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message } });
  });
});

describe('unknown repositories and installations are 404 NOT_FOUND', () => {
  test.each(['/repos/nope', '/installations/999999999', '/installations/abc', '/installations/1.5'])('%s', async (path) => {
    const answer = await catalog.call('GET', `/internal/users/${catalog.newUser()}${path}`);
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });
});
