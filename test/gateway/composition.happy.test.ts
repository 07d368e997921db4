import { startGatewayUnderTest, type GatewayUnderTest } from './support/gatewayUnderTest.js';
import { bearer, call, dataOf, tenant } from './support/accounts.js';

let gateway: GatewayUnderTest;
let api: string;
beforeAll(async () => {
  gateway = await startGatewayUnderTest();
  api = `${gateway.baseUrl}/api/v1/svc`;
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
});

describe('GET /repos, /agents, /models answer from the catalog for the authenticated user, exact contract fields', () => {
  test('GET /repos → {repos: Repo[]} with exactly id, full_name, installation_id, default_branch, root_directory', async () => {
    const { account, token } = await tenant(gateway.baseUrl);
    const answer = await call<{ repos: Record<string, unknown>[] }>(`${api}/repos`, { headers: bearer(token.token) });
    expect(answer.status).toBe(200);
    expect(answer.body.ok).toBe(true);
    const { repos } = dataOf(answer);
    expect(Object.keys(dataOf(answer))).toEqual(['repos']);
    expect(repos.map((r) => r.id).sort()).toEqual(account.repos.map((r) => r.id).sort());
    for (const repo of repos) {
      expect(Object.keys(repo).sort()).toEqual(['default_branch', 'full_name', 'id', 'installation_id', 'root_directory']);
      expect(repo.installation_id).toBe(account.installationId);
      expect(typeof repo.full_name).toBe('string');
    }
  });

  test('GET /repos?q= filters case-insensitively by owner/repo', async () => {
    const { account, token } = await tenant(gateway.baseUrl);
    const [first] = account.repos;
    const name = (first?.full_name ?? '').split('/')[1] ?? '';
    const answer = await call<{ repos: { full_name: string }[] }>(`${api}/repos?q=${encodeURIComponent(name.toUpperCase())}`, { headers: bearer(token.token) });
    expect(dataOf(answer).repos.map((r) => r.full_name)).toEqual([first?.full_name]);
  });

  test('GET /agents → {agents: Agent[]} with exactly the contract fields, presets marked', async () => {
    const { token } = await tenant(gateway.baseUrl);
    const { agents } = dataOf(await call<{ agents: Record<string, unknown>[] }>(`${api}/agents`, { headers: bearer(token.token) }));
    expect(agents.length).toBeGreaterThan(0);
    for (const agent of agents) {
      expect(Object.keys(agent).sort()).toEqual(['category', 'description', 'id', 'model', 'name', 'preset', 'slug']);
      if (agent.preset) expect(String(agent.id).startsWith('preset:')).toBe(true);
    }
  });

  test('GET /models → {models: Model[]} with exactly the contract fields', async () => {
    const { token } = await tenant(gateway.baseUrl);
    const { models } = dataOf(await call<{ models: Record<string, unknown>[] }>(`${api}/models`, { headers: bearer(token.token) }));
    for (const model of models) {
      expect(Object.keys(model).sort()).toEqual(['capabilities', 'contextLength', 'id', 'name', 'pricing', 'provider']);
      expect(Object.keys(model.pricing as object).sort()).toEqual(['input', 'output']);
    }
  });
});
