import { availableModels, unavailabilityOf, type CatalogModel, type UserModelContext } from './modelAvailability.js';

const model = (overrides: Partial<CatalogModel> = {}): CatalogModel => ({
  id: 'openai/gpt-test',
  provider: 'openai',
  name: 'GPT test',
  contextLength: 128000,
  capabilities: ['tools'],
  pricing: { input: 1, output: 2 },
  visible: true,
  managedPlans: ['pro'],
  ...overrides,
});
const user = (overrides: Partial<UserModelContext> = {}): UserModelContext => ({
  plan: 'pro',
  providerKeys: new Set(),
  enabledByModelId: new Map(),
  ...overrides,
});

describe('catalog visibility: a hidden model is offered to nobody', () => {
  test('visible → available; hidden → not', () => {
    expect(unavailabilityOf(model(), user())).toBeNull();
    expect(unavailabilityOf(model({ visible: false }), user({ providerKeys: new Set(['openai']) }))).toBe('hidden');
  });
});

describe("the user's enabled-state policy: an explicit disable removes the model", () => {
  test('enabled by default; disabled when the user turns it off; enabled again when turned on', () => {
    expect(unavailabilityOf(model(), user())).toBeNull();
    expect(unavailabilityOf(model(), user({ enabledByModelId: new Map([['openai/gpt-test', false]]) }))).toBe('disabled_by_user');
    expect(unavailabilityOf(model(), user({ enabledByModelId: new Map([['openai/gpt-test', true]]) }))).toBeNull();
  });
});

describe("provider keys: a model is reachable with the user's own key for its provider", () => {
  test('no managed access and no key → not reachable; a key for the provider → available', () => {
    const unmanaged = model({ managedPlans: [] });
    expect(unavailabilityOf(unmanaged, user())).toBe('not_reachable');
    expect(unavailabilityOf(unmanaged, user({ providerKeys: new Set(['anthropic']) }))).toBe('not_reachable');
    expect(unavailabilityOf(unmanaged, user({ providerKeys: new Set(['openai']) }))).toBeNull();
  });
});

describe("plan-backed managed access: a model is reachable without a key when the user's plan covers it", () => {
  test('pro plan covers it; free plan does not', () => {
    expect(unavailabilityOf(model(), user({ plan: 'pro' }))).toBeNull();
    expect(unavailabilityOf(model(), user({ plan: 'free' }))).toBe('not_reachable');
  });
});

describe('the list keeps only available models, in catalog order', () => {
  test('filters', () => {
    const list = [model({ id: 'a' }), model({ id: 'b', visible: false }), model({ id: 'c', managedPlans: [] }), model({ id: 'd' })];
    expect(availableModels(list, user()).map((m) => m.id)).toEqual(['a', 'd']);
  });
});
