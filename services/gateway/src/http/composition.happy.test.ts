import { bearer, call, dataOf, gatewaySuite, tenant } from '../testing/index.js';

const suite = gatewaySuite();

describe('GET /repos, /agents, /models answer from the catalog for the authenticated user, exact contract fields', () => {
  test('GET /repos → {repos: Repo[]} with exactly id, full_name, installation_id, default_branch, root_directory', async () => {
    const { account, token } = await tenant(suite.gateway.baseUrl);
    const answer = await call<{ repos: Record<string, unknown>[] }>(`${suite.api}/repos`, { headers: bearer(token.token) });
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
    const { account, token } = await tenant(suite.gateway.baseUrl);
    const [first] = account.repos;
    const name = (first?.full_name ?? '').split('/')[1] ?? '';
    const answer = await call<{ repos: { full_name: string }[] }>(`${suite.api}/repos?q=${encodeURIComponent(name.toUpperCase())}`, {
      headers: bearer(token.token),
    });
    expect(dataOf(answer).repos.map((r) => r.full_name)).toEqual([first?.full_name]);
  });

  test('GET /agents → {agents: Agent[]} with exactly the contract fields, presets marked', async () => {
    const { token } = await tenant(suite.gateway.baseUrl);
    const { agents } = dataOf(await call<{ agents: Record<string, unknown>[] }>(`${suite.api}/agents`, { headers: bearer(token.token) }));
    expect(agents.some((agent) => agent.preset === true)).toBe(true);
    for (const agent of agents) {
      expect(Object.keys(agent).sort()).toEqual(['category', 'description', 'id', 'model', 'name', 'preset', 'slug']);
      if (agent.preset) expect(String(agent.id).startsWith('preset:')).toBe(true);
    }
  });

  test('GET /models → {models: Model[]} with exactly the contract fields', async () => {
    const { token } = await tenant(suite.gateway.baseUrl);
    const { models } = dataOf(await call<{ models: Record<string, unknown>[] }>(`${suite.api}/models`, { headers: bearer(token.token) }));
    expect(models.length).toBeGreaterThan(0);
    for (const model of models) {
      expect(Object.keys(model).sort()).toEqual(['capabilities', 'contextLength', 'id', 'name', 'pricing', 'provider']);
      expect(Object.keys(model.pricing as object).sort()).toEqual(['input', 'output']);
    }
  });

  test('the gateway keeps no catalog data: a plan change in the catalog shows on the next request, for that user only', async () => {
    const { account, token } = await tenant(suite.gateway.baseUrl);
    const other = await tenant(suite.gateway.baseUrl);
    const modelsOf = async (pat: string): Promise<string[]> =>
      dataOf(await call<{ models: { id: string }[] }>(`${suite.api}/models`, { headers: bearer(pat) }))
        .models.map((m) => m.id)
        .sort();
    const before = await modelsOf(token.token);
    const changed = await fetch(`${suite.system.stack.services.catalog.url}/internal/users/${account.userId}/plan`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-internal-token': suite.system.internalToken, 'x-caller-service': 'test' },
      body: JSON.stringify({ plan: 'pro' }),
    });
    expect(changed.status).toBe(200);
    const after = await modelsOf(token.token);
    expect(after.length).toBeGreaterThan(before.length);
    expect(await modelsOf(other.token.token)).toEqual(before);
  });
});
