import { randomBytes } from 'node:crypto';
import { startCatalogHarness, type CatalogHarness } from '../testing/catalogHarness.js';

let production: CatalogHarness;
beforeAll(async () => {
  production = await startCatalogHarness({
    ARS_ENV: 'production',
    CATALOG_SECRETS_KEY: randomBytes(32).toString('base64'),
    // Production needs a GitHub App (never called here: the route under test is refused first).
    GITHUB_APP_ID: '1',
    GITHUB_APP_PRIVATE_KEY: 'not-a-key',
  });
});
afterAll(async () => {
  await production.stop();
});

describe('the dev installation route does not exist in production: 404 NOT_FOUND under ARS_ENV=production', () => {
  test('POST /internal/dev/installations is 404 and creates nothing', async () => {
    const user = production.newUser();
    const answer = await production.call('POST', '/internal/dev/installations', { userId: user });
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect((await production.call<{ repos: unknown[] }>('GET', `/internal/users/${user}/repos`)).data.repos).toEqual([]);
  });

  test('the rest of the internal API still answers', async () => {
    expect((await production.call('GET', `/internal/users/${production.newUser()}/models`)).status).toBe(200);
  });
});
