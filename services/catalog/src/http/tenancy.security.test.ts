import { createLogger } from '@ars/logger';
import { connectMongo } from '@ars/mongo';
import { testInfrastructure } from '@ars/testenv';
import { startCatalogHarness, type CatalogHarness } from '../testing/catalogHarness.js';

let catalog: CatalogHarness;
beforeAll(async () => {
  catalog = await startCatalogHarness();
});
afterAll(async () => {
  await catalog.stop();
});

describe('every lookup is scoped to the user: another user’s repo, installation or agent is 404 NOT_FOUND, never 403', () => {
  test('repo, installation and agent of user A are invisible to user B', async () => {
    const owner = catalog.newUser();
    const stranger = catalog.newUser();
    const dev = await catalog.devInstallation(owner);
    const repoId = dev.repos[0]?.id ?? '';
    const agent = (await catalog.call<{ agent: { id: string } }>('POST', `/internal/users/${owner}/agents`, { name: 'Mine', model: 'gpt-5.1-codex-mini' })).data
      .agent;
    for (const path of [`/repos/${repoId}`, `/installations/${dev.installation.id}`, `/agents/${agent.id}`]) {
      expect((await catalog.call('GET', `/internal/users/${owner}${path}`)).status).toBe(200);
      const answer = await catalog.call('GET', `/internal/users/${stranger}${path}`);
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    }
    const lists = await Promise.all([
      catalog.call<{ repos: unknown[] }>('GET', `/internal/users/${stranger}/repos`),
      catalog.call<{ agents: { preset: boolean }[] }>('GET', `/internal/users/${stranger}/agents`),
    ]);
    expect(lists[0].data.repos).toEqual([]);
    expect(lists[1].data.agents.every((a) => a.preset)).toBe(true);
  });
});

describe('every internal route needs the internal token: missing or wrong is 401 UNAUTHORIZED', () => {
  const routes: [string, string, unknown][] = [
    ['GET', '/internal/users/u1/repos', undefined],
    ['GET', '/internal/users/u1/repos/r1', undefined],
    ['GET', '/internal/users/u1/installations/1', undefined],
    ['GET', '/internal/users/u1/agents', undefined],
    ['GET', '/internal/users/u1/agents/preset:bug-fixer', undefined],
    ['POST', '/internal/users/u1/agents', { name: 'x', model: 'gpt-5.1-codex-mini' }],
    ['GET', '/internal/users/u1/models', undefined],
    ['GET', '/internal/users/u1/models/gpt-5.1-codex-mini', undefined],
    ['PUT', '/internal/users/u1/plan', { plan: 'pro' }],
    ['PUT', '/internal/users/u1/model-policy/gpt-5.1', { enabled: false }],
    ['PUT', '/internal/users/u1/provider-keys/openai', { apiKey: 'k' }],
    ['DELETE', '/internal/users/u1/provider-keys/openai', undefined],
    ['PUT', '/internal/models/gpt-5.1/visibility', { visible: false }],
    ['POST', '/internal/dev/installations', { userId: 'u1' }],
  ];
  test.each(routes)('%s %s', async (method, path, body) => {
    const variants: Record<string, string>[] = [{}, { 'x-internal-token': 'wrong-token-wrong-token' }, { 'x-internal-token': `${catalog.token}x` }];
    for (const headers of variants) {
      const answer = await catalog.call(method, path, body, headers);
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ ok: false, error: { code: 'UNAUTHORIZED', message: 'Missing or invalid internal token' } });
    }
  });
});

describe('provider keys are never returned or logged, and are encrypted at rest', () => {
  test('the key appears in no answer, no log line and not in plaintext in the database', async () => {
    const user = catalog.newUser();
    const apiKey = `sk-secret-${Math.random().toString(36).slice(2)}-never-shown`;
    const answers = [
      await catalog.call('PUT', `/internal/users/${user}/provider-keys/openai`, { apiKey }),
      await catalog.call('PUT', `/internal/users/${user}/provider-keys/anthropic`, { apiKey }),
      await catalog.call('GET', `/internal/users/${user}/models`),
      await catalog.call('GET', `/internal/users/${user}/models/gpt-5.1`),
      await catalog.call('GET', `/internal/users/${user}/agents`),
      await catalog.call('DELETE', `/internal/users/${user}/provider-keys/anthropic`),
      await catalog.call('PUT', `/internal/users/${user}/provider-keys/openai`, { apiKey, extra: apiKey }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200, 400]);
    for (const answer of answers) expect(answer.text).not.toContain(apiKey);
    expect(catalog.logLines.length).toBeGreaterThan(0);
    for (const line of catalog.logLines) expect(line).not.toContain(apiKey);

    const mongo = await connectMongo({
      url: testInfrastructure().mongoUrl,
      dbName: catalog.dbName,
      logger: createLogger({ service: 'test', level: 'silent' }),
      appName: 'test',
    });
    try {
      const stored = await mongo.db.collection('provider_keys').find({ userId: user }).toArray();
      expect(stored).toHaveLength(1);
      expect(stored[0]?.sealed).toMatchObject({ alg: 'aes-256-gcm' });
      expect(JSON.stringify(stored)).not.toContain(apiKey);
    } finally {
      await mongo.close();
    }
  });
});
