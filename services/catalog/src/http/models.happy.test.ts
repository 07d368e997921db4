import { startCatalogHarness, type CatalogHarness } from '../testing/catalogHarness.js';

interface ModelAnswer {
  id: string;
  provider: string;
  name: string;
  contextLength: number | null;
  capabilities: string[];
  pricing: { input: number | null; output: number | null };
}

let catalog: CatalogHarness;
beforeAll(async () => {
  catalog = await startCatalogHarness();
});
afterAll(async () => {
  await catalog.stop();
});

const modelIds = async (user: string): Promise<string[]> =>
  (await catalog.call<{ models: ModelAnswer[] }>('GET', `/internal/users/${user}/models`)).data.models.map((m) => m.id);
const getModel = (user: string, id: string) => catalog.call<{ model: ModelAnswer }>('GET', `/internal/users/${user}/models/${id}`);
const put = async (path: string, body: unknown) => {
  const answer = await catalog.call('PUT', path, body);
  expect(answer.status).toBe(200);
  return answer.data;
};

describe('a new user is on the free plan: only the models the free plan manages, with the contract’s Model fields exactly', () => {
  test('free plan: the mini models; each entry has exactly id, provider, name, contextLength, capabilities, pricing', async () => {
    const user = catalog.newUser();
    const { models } = (await catalog.call<{ models: ModelAnswer[] }>('GET', `/internal/users/${user}/models`)).data;
    expect(models.map((m) => m.id)).toEqual(['gpt-5.1-codex-mini', 'claude-haiku-4-5']);
    for (const model of models) {
      expect(Object.keys(model).sort()).toEqual(['capabilities', 'contextLength', 'id', 'name', 'pricing', 'provider']);
      expect(Object.keys(model.pricing).sort()).toEqual(['input', 'output']);
    }
    expect((await getModel(user, 'claude-haiku-4-5')).data.model).toEqual(models[1]);
  });
});

describe('plan-backed managed access: the pro plan reaches the models it manages without a key', () => {
  test('free → pro shows gpt-5.1-codex and claude-sonnet-4-5; back to free hides them', async () => {
    const user = catalog.newUser();
    expect(await modelIds(user)).not.toContain('claude-sonnet-4-5');
    expect((await getModel(user, 'claude-sonnet-4-5')).status).toBe(404);
    expect(await put(`/internal/users/${user}/plan`, { plan: 'pro' })).toEqual({ plan: 'pro' });
    expect(await modelIds(user)).toEqual(['gpt-5.1-codex', 'gpt-5.1-codex-mini', 'claude-sonnet-4-5', 'claude-haiku-4-5']);
    expect((await getModel(user, 'claude-sonnet-4-5')).status).toBe(200);
    await put(`/internal/users/${user}/plan`, { plan: 'free' });
    expect(await modelIds(user)).not.toContain('claude-sonnet-4-5');
  });
});

describe('provider keys: the user’s own key for a provider reaches every visible model of that provider', () => {
  test('an openai key adds the openai models no plan manages; deleting it removes them', async () => {
    const user = catalog.newUser();
    expect((await getModel(user, 'gpt-5.1')).status).toBe(404);
    const stored = await put(`/internal/users/${user}/provider-keys/openai`, { apiKey: 'sk-test-provider-key-1' });
    expect(stored).toEqual({ providerKey: { provider: 'openai', configured: true, updatedAt: expect.any(String) } });
    expect(await modelIds(user)).toEqual(['gpt-5.1-codex', 'gpt-5.1-codex-mini', 'gpt-5.1', 'claude-haiku-4-5']);
    expect((await getModel(user, 'gpt-5.1')).status).toBe(200);
    const removed = await catalog.call('DELETE', `/internal/users/${user}/provider-keys/openai`);
    expect(removed.status).toBe(200);
    expect(removed.data).toEqual({ providerKey: { provider: 'openai', configured: false }, removed: true });
    expect(await modelIds(user)).toEqual(['gpt-5.1-codex-mini', 'claude-haiku-4-5']);
  });
});

describe('the user’s enabled-state policy: a model the user disables is not offered to them', () => {
  test('disable claude-haiku-4-5 → gone (and 404 by id); enable → back; another user is unaffected', async () => {
    const user = catalog.newUser();
    const other = catalog.newUser();
    expect(await put(`/internal/users/${user}/model-policy/claude-haiku-4-5`, { enabled: false })).toEqual({
      policy: { modelId: 'claude-haiku-4-5', enabled: false },
    });
    expect(await modelIds(user)).toEqual(['gpt-5.1-codex-mini']);
    expect((await getModel(user, 'claude-haiku-4-5')).status).toBe(404);
    expect(await modelIds(other)).toContain('claude-haiku-4-5');
    await put(`/internal/users/${user}/model-policy/claude-haiku-4-5`, { enabled: true });
    expect(await modelIds(user)).toContain('claude-haiku-4-5');
  });
});

describe('catalog visibility: a hidden model is offered to nobody, whatever their plan or keys', () => {
  test('hide claude-haiku-4-5 → gone for a pro user with an anthropic key; show → back', async () => {
    const user = catalog.newUser();
    await put(`/internal/users/${user}/plan`, { plan: 'pro' });
    await put(`/internal/users/${user}/provider-keys/anthropic`, { apiKey: 'sk-ant-test-key' });
    expect(await modelIds(user)).toContain('claude-haiku-4-5');
    try {
      expect(await put('/internal/models/claude-haiku-4-5/visibility', { visible: false })).toEqual({
        visibility: { modelId: 'claude-haiku-4-5', visible: false },
      });
      expect(await modelIds(user)).not.toContain('claude-haiku-4-5');
      expect(await modelIds(catalog.newUser())).not.toContain('claude-haiku-4-5');
      expect((await getModel(user, 'claude-haiku-4-5')).status).toBe(404);
    } finally {
      await put('/internal/models/claude-haiku-4-5/visibility', { visible: true });
    }
    expect(await modelIds(user)).toContain('claude-haiku-4-5');
  });
});
