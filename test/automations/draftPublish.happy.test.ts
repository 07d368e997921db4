// Automations through the public API on the whole stack: create → put → validate → publish, as a client would.
import { bearer, call, createToken, dataOf, errorOf, tenant } from '../support/accounts.js';
import { sharedSystem } from '@ars/testenv';

const system = sharedSystem();

interface Automation {
  id: string;
  installationId: number;
  status: string;
  draftGraph: { nodes: { id: string; type: string; data: Record<string, unknown> }[]; edges: unknown[] };
  publishedVersion: { id: string; versionNumber: number; graph: unknown } | null;
  runSummary: Record<string, unknown>;
}

describe('automations end to end through the gateway: create → put → validate → publish', () => {
  test('a default draft, bound to one of GET /agents, validates clean and publishes version 1', async () => {
    const api = `${system().baseUrl}/api/v1/svc`;
    const { account, token } = await tenant(system().baseUrl);
    const auth = bearer(token.token);

    const created = await call<{ automation: Automation }>(`${api}/automations`, {
      method: 'POST',
      headers: auth,
      json: { installationId: account.installationId, name: 'e2e' },
    });
    expect(created.status).toBe(201);
    const automation = dataOf(created).automation;
    expect(automation).toMatchObject({ installationId: account.installationId, status: 'active', publishedVersion: null });
    expect(automation.runSummary).toEqual({ lastRunId: null, lastRunStatus: null, runningCount: 0, pendingCount: 0, failed24h: 0 });

    const before = dataOf(
      await call<{ valid: boolean; problems: { code: string }[] }>(`${api}/automations/${automation.id}/validate`, { method: 'POST', headers: auth }),
    );
    expect(before).toEqual({ valid: false, problems: [expect.objectContaining({ nodeId: 'agent', code: 'UNBOUND_AGENT' })] });
    const refused = await call(`${api}/automations/${automation.id}/publish`, { method: 'POST', headers: auth });
    expect(refused.status).toBe(400);
    expect(errorOf(refused)).toEqual({ code: 'BAD_REQUEST', message: expect.stringContaining('[UNBOUND_AGENT]') });

    const agentId = dataOf(await call<{ agents: { id: string }[] }>(`${api}/agents`, { headers: auth })).agents[0]?.id ?? '';
    const graph = {
      ...automation.draftGraph,
      nodes: automation.draftGraph.nodes.map((node) => (node.type === 'agent' ? { ...node, data: { ...node.data, agentId } } : node)),
    };
    const put = await call<{ automation: Automation }>(`${api}/automations/${automation.id}`, { method: 'PUT', headers: auth, json: { graph } });
    expect(dataOf(put).automation.draftGraph).toEqual(graph);

    const after = dataOf(
      await call<{ valid: boolean; problems: unknown[] }>(`${api}/automations/${automation.id}/validate`, { method: 'POST', headers: auth, json: {} }),
    );
    expect(after).toEqual({ valid: true, problems: [] });

    const published = await call<{ automation: Automation }>(`${api}/automations/${automation.id}/publish`, { method: 'POST', headers: auth });
    expect(published.status).toBe(200);
    expect(dataOf(published).automation.publishedVersion).toMatchObject({ versionNumber: 1, graph });

    const list = dataOf(
      await call<{ automations: { id: string; publishedVersionId: string | null }[]; nextCursor: string | null }>(`${api}/automations`, { headers: auth }),
    );
    expect(list).toEqual({
      automations: [expect.objectContaining({ id: automation.id, publishedVersionId: dataOf(published).automation.publishedVersion?.id })],
      nextCursor: null,
    });
  });

  test("validate needs the write scope, and another user's automation is 404 through the gateway", async () => {
    const api = `${system().baseUrl}/api/v1/svc`;
    const { account, token } = await tenant(system().baseUrl);
    const created = dataOf(
      await call<{ automation: Automation }>(`${api}/automations`, {
        method: 'POST',
        headers: bearer(token.token),
        json: { installationId: account.installationId },
      }),
    ).automation;
    const readOnly = await createToken(system().baseUrl, account, { name: 'ro', scopes: ['read'] });
    const forbidden = await call(`${api}/automations/${created.id}/validate`, { method: 'POST', headers: bearer(readOnly.token) });
    expect(forbidden.status).toBe(403);
    const stranger = await tenant(system().baseUrl);
    const hidden = await call(`${api}/automations/${created.id}`, { headers: bearer(stranger.token.token) });
    expect(errorOf(hidden)).toEqual({ code: 'NOT_FOUND', message: 'Automation not found' });
  });
});
