// The MCP transport on the whole stack through the official SDK's Client and its streamable HTTP
// transport, authenticated with a PAT: initialize, tools/list filtered by the token's scopes, tools
// that run the REST routes' own code (a run started, awaited and read; an automation created,
// validated, published and triggered), and the contract's errors (-32601, -32602, isError results).
import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createToken, tenant, type Account } from '../support/accounts.js';
import { callTool, connectMcp, type ToolAnswer } from '../support/mcp.js';
import { sharedSystem } from '@ars/testenv';

const system = sharedSystem();
const connect = (token: string) => connectMcp(system().baseUrl, token);

let account: Account;
let client: Client;
beforeAll(async () => {
  const made = await tenant(system().baseUrl);
  account = made.account;
  client = await connect(made.token.token);
}, 60_000);
afterAll(async () => {
  await client?.close();
});

const call = (name: string, args: Record<string, unknown> = {}) => callTool(client, name, args);

describe('initialize negotiates 2025-11-25 and names the server; tools/list shows what the token’s scopes allow', () => {
  test('a read and write token sees all 23 tools, each with an input schema, an output schema and annotations', async () => {
    expect(client.getServerVersion()).toEqual({ name: 'agent-run-service', version: '0.1.0' });
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(23);
    expect(tools.map((tool) => tool.name)).toContain('svc_list_automations');
    for (const tool of tools) {
      expect(tool.name).toMatch(/^svc_[a-z_]+$/);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema).toBeDefined();
      expect(typeof tool.annotations?.readOnlyHint).toBe('boolean');
      expect(tool.description?.length).toBeGreaterThan(40);
    }
  });

  test('a read-only token sees the read tools only, and a write tool answers FORBIDDEN', async () => {
    const readOnly = await createToken(system().baseUrl, account, { name: 'read only', scopes: ['read'] });
    const reader = await connect(readOnly.token);
    try {
      const names = (await reader.listTools()).tools.map((tool) => tool.name);
      expect(names).toHaveLength(13);
      expect(names).toContain('svc_list_repos');
      expect(names).toContain('svc_wait_for_run');
      expect(names).not.toContain('svc_start_run');
      expect(names).not.toContain('svc_validate_automation');
      const refused = await callTool(reader, 'svc_cancel_run', { runId: 'x' });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent?.error).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    } finally {
      await reader.close();
    }
  });
});

describe('a tool runs the same code as its REST route: a run started, awaited and read', () => {
  test('svc_list_repos → svc_start_run (idempotencyKey) → svc_wait_for_run → svc_list_run_events; the same key replays', async () => {
    const repos = (await call('svc_list_repos')).structuredContent?.repos as { id: string }[];
    expect(repos.map((repo) => repo.id).sort()).toEqual(account.repos.map((repo) => repo.id).sort());
    const key = randomUUID();
    const args = { idempotencyKey: key, repoId: account.repos[0]?.id, prompt: '@say hello from a tool' };
    const started = await call('svc_start_run', args);
    expect(started.isError).toBe(false);
    const run = started.structuredContent as { runId: string; status: string; replayed: boolean };
    expect(run).toMatchObject({ status: 'pending', replayed: false });
    expect(JSON.parse(started.content[0]?.text ?? '{}')).toEqual(started.structuredContent);
    let waited: ToolAnswer;
    do waited = await call('svc_wait_for_run', { runId: run.runId, timeoutSeconds: 20 });
    while (waited.structuredContent?.ended !== true);
    expect(waited.structuredContent?.run as { status: string }).toMatchObject({ status: 'success' });
    const events = (await call('svc_list_run_events', { runId: run.runId })).structuredContent?.events as { type: string; message: string | null }[];
    expect(events.some((event) => event.type === 'assistant_message' && event.message === 'hello from a tool')).toBe(true);
    const replay = await call('svc_start_run', args);
    expect(replay.structuredContent).toMatchObject({ runId: run.runId, replayed: true });
  });
});

describe('automations through tools: created, validated, published, triggered and read', () => {
  test('svc_create_automation → svc_validate_automation → svc_publish_automation → svc_trigger_automation → svc_get_automation_run', async () => {
    const agents = (await call('svc_list_agents')).structuredContent?.agents as { id: string }[];
    const graph = {
      nodes: [
        { id: 'start', type: 'start', position: { x: 0, y: 0 }, data: {} },
        { id: 'say', type: 'agent', position: { x: 200, y: 0 }, data: { agentId: agents[0]?.id, prompt: '@say done' } },
        { id: 'end', type: 'end', position: { x: 400, y: 0 }, data: {} },
      ],
      edges: [
        { id: 'a', source: 'start', target: 'say' },
        { id: 'b', source: 'say', target: 'end' },
      ],
    };
    const created = await call('svc_create_automation', { installationId: account.installationId, name: 'From a tool', graph });
    const automationId = (created.structuredContent?.automation as { id: string }).id;
    expect((await call('svc_validate_automation', { automationId })).structuredContent).toMatchObject({ valid: true });
    expect((await call('svc_publish_automation', { automationId })).isError).toBe(false);
    const triggered = await call('svc_trigger_automation', { automationId, idempotencyKey: randomUUID(), repoId: account.repos[0]?.id });
    const runId = (triggered.structuredContent?.run as { jobRunId: string }).jobRunId;
    const detail = await call('svc_get_automation_run', { automationId, runId });
    expect(detail.structuredContent?.run).toMatchObject({ id: runId, automationId });
    const listed = (await call('svc_list_automations')).structuredContent?.automations as { id: string }[];
    expect(listed.map((automation) => automation.id)).toContain(automationId);
  });
});

describe('errors: an unknown tool is -32601, bad arguments -32602, a failing operation an isError result with code, status, message and suggestion', () => {
  test('each in the contract’s shape', async () => {
    await expect(client.callTool({ name: 'svc_no_such_tool', arguments: {} })).rejects.toMatchObject({ code: -32601 });
    await expect(client.callTool({ name: 'svc_get_run', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    await expect(client.callTool({ name: 'svc_get_run', arguments: { runId: 'r', extra: 1 } })).rejects.toMatchObject({ code: -32602 });
    const missing = await call('svc_get_run', { runId: 'no-such-run' });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent?.error).toEqual({ code: 'NOT_FOUND', status: 404, message: expect.any(String), suggestion: expect.any(String) });
    const noKey = await call('svc_get_automation', { automationId: 'nope' });
    expect(noKey.structuredContent?.error).toMatchObject({ code: 'NOT_FOUND' });
  });
});
