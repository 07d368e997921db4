import { AppError } from '@ars/errors';
import { createHttpClient, type HttpClient } from '@ars/http-client';
import { createLogger } from '@ars/logger';
import { createCatalogClient, type CatalogClient } from './client.js';
import { startCatalogHarness, type CatalogHarness } from './testing/catalogHarness.js';

let harness: CatalogHarness;
let http: HttpClient;
let catalog: CatalogClient;
beforeAll(async () => {
  harness = await startCatalogHarness();
  http = createHttpClient({
    baseUrl: harness.url,
    caller: 'catalog-client-test',
    internalToken: harness.token,
    logger: createLogger({ service: 'catalog-client-test', level: 'silent' }),
    peer: 'catalog',
  });
  catalog = createCatalogClient(http);
});
afterAll(async () => {
  await http.close();
  await harness.stop();
});

describe('the catalog client calls the real internal routes and answers their typed shapes', () => {
  test('createDevInstallation, listRepos, repo, listAgents, listModels', async () => {
    const userId = harness.newUser();
    const dev = await catalog.createDevInstallation({ userId, repoCount: 2 });
    expect(dev.installation).toEqual({ id: expect.any(Number), account: expect.stringMatching(/^dev-/), provider: 'local' });
    const repos = await catalog.listRepos(userId);
    expect(repos.map((repo) => repo.id).sort()).toEqual(dev.repos.map((repo) => repo.id).sort());
    expect(repos[0]).toEqual({
      id: expect.any(String),
      full_name: expect.any(String),
      installation_id: dev.installation.id,
      default_branch: 'main',
      root_directory: null,
    });
    expect(await catalog.listRepos(userId, { limit: 1 })).toHaveLength(1);
    const repo = await catalog.repo(userId, dev.repos[1]?.id ?? '');
    expect(repo).toMatchObject({ id: dev.repos[1]?.id, clone_url: expect.stringMatching(/^file:\/\//) });
    expect((await catalog.listAgents(userId)).every((agent) => agent.preset)).toBe(true);
    expect(Array.isArray(await catalog.listModels(userId))).toBe(true);
  });
});

describe("the catalog client maps an error answer to the one error type (AppError with the catalog's code)", () => {
  test("another user's repository is AppError NOT_FOUND", async () => {
    const owner = harness.newUser();
    const dev = await catalog.createDevInstallation({ userId: owner });
    const error = await catalog.repo(harness.newUser(), dev.repos[0]?.id ?? '').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404, message: 'Repository not found' });
  });
  test('a repository id that is not well-formed Unicode (a lone surrogate from a JSON body) is AppError NOT_FOUND, not a URIError', async () => {
    const userId = harness.newUser();
    await catalog.createDevInstallation({ userId });
    for (const call of [() => catalog.repo(userId, '\ud800'), () => catalog.repoAccess(userId, 'repo\udc00')]) {
      const error = await call().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    }
  });
  test("another user's installation is AppError NOT_FOUND; the owner's answers its id and provider", async () => {
    const owner = harness.newUser();
    const dev = await catalog.createDevInstallation({ userId: owner });
    expect(await catalog.installation(owner, dev.installation.id)).toEqual(dev.installation);
    const error = await catalog.installation(harness.newUser(), dev.installation.id).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404, message: 'Installation not found' });
  });
});
