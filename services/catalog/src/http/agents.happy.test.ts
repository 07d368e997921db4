import { startCatalogHarness, type CatalogHarness } from '../testing/catalogHarness.js';

interface AgentAnswer {
  id: string;
  name: string;
  slug: string | null;
  model: string;
  description: string | null;
  category: string | null;
  preset: boolean;
}

let catalog: CatalogHarness;
beforeAll(async () => {
  catalog = await startCatalogHarness();
});
afterAll(async () => {
  await catalog.stop();
});

const AGENT_FIELDS = ['category', 'description', 'id', 'model', 'name', 'preset', 'slug'];
const listAgents = async (user: string) => (await catalog.call<{ agents: AgentAnswer[] }>('GET', `/internal/users/${user}/agents`)).data.agents;

describe('presets: every user sees the preset agents, ids beginning with preset:, each bound to a catalog model', () => {
  test('a new user lists only presets, with the contract’s Agent fields exactly; each resolves by id', async () => {
    const user = catalog.newUser();
    const agents = await listAgents(user);
    expect(agents.length).toBeGreaterThanOrEqual(2);
    expect(agents.map((a) => a.id)).toEqual(expect.arrayContaining(['preset:code-reviewer', 'preset:bug-fixer']));
    const { models } = (await catalog.call<{ models: { id: string }[] }>('GET', '/internal/users/' + user + '/models')).data;
    expect(models.length).toBeGreaterThan(0);
    for (const agent of agents) {
      expect(Object.keys(agent).sort()).toEqual(AGENT_FIELDS);
      expect(agent.id.startsWith('preset:')).toBe(true);
      expect(agent.preset).toBe(true);
      expect((await catalog.call<{ agent: AgentAnswer }>('GET', `/internal/users/${user}/agents/${agent.id}`)).data.agent).toEqual(agent);
    }
  });
});

describe('owned agents: a user creates agents with an available model; they list before the presets, oldest first', () => {
  test('create two, list them first, get each by id', async () => {
    const user = catalog.newUser();
    const first = await catalog.call<{ agent: AgentAnswer }>('POST', `/internal/users/${user}/agents`, { name: 'Release notes', model: 'claude-haiku-4-5' });
    expect(first.status).toBe(201);
    expect(first.data.agent).toEqual({
      id: expect.any(String),
      name: 'Release notes',
      slug: null,
      model: 'claude-haiku-4-5',
      description: null,
      category: null,
      preset: false,
    });
    const second = await catalog.call<{ agent: AgentAnswer }>('POST', `/internal/users/${user}/agents`, {
      name: 'Migrator',
      slug: 'migrator',
      model: 'gpt-5.1-codex-mini',
      description: 'Moves code to the new API',
      category: 'maintenance',
    });
    expect(second.status).toBe(201);
    expect(Object.keys(second.data.agent).sort()).toEqual(AGENT_FIELDS);
    const agents = await listAgents(user);
    expect(agents.slice(0, 2)).toEqual([first.data.agent, second.data.agent]);
    expect(agents.slice(2).every((a) => a.preset)).toBe(true);
    expect((await catalog.call<{ agent: AgentAnswer }>('GET', `/internal/users/${user}/agents/${second.data.agent.id}`)).data.agent).toEqual(second.data.agent);
  });

  test('a model available only through the user’s plan or key can be used once it is available', async () => {
    const user = catalog.newUser();
    const denied = await catalog.call('POST', `/internal/users/${user}/agents`, { name: 'Big', model: 'claude-sonnet-4-5' });
    expect(denied.status).toBe(400);
    expect(denied.body).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST', message: expect.stringContaining('model') } });
    await catalog.call('PUT', `/internal/users/${user}/plan`, { plan: 'pro' });
    expect((await catalog.call('POST', `/internal/users/${user}/agents`, { name: 'Big', model: 'claude-sonnet-4-5' })).status).toBe(201);
  });
});
