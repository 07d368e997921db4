// MCP tools with a real effect on the whole stack, each checked independently through REST: a
// sandbox created by svc_create_sandbox (listed and its logs read by REST and by svc_list_sandboxes /
// svc_get_sandbox_logs), an automation's draft replaced by svc_update_automation, a node's model set
// by svc_set_automation_model (from svc_list_models) and used by the triggered run that
// svc_list_automation_runs lists, and the development account's pull request re-reviewed by
// svc_rerun_pr_review, its attempt run to its end.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { jest } from '@jest/globals';
import { bearer, call, createToken, dataOf, type Account } from '../support/accounts.js';
import { automationClient, graphOf, publishAutomation, triggerAutomation, untilRun, type AutomationClient } from '../support/automations.js';
import { callTool, connectMcp, type ToolAnswer } from '../support/mcp.js';
import { untilAttemptEnded } from '../support/prReviews.js';
import { SandboxesClient, type Sandbox, type SandboxLogs } from '../support/sandboxes.js';
import { sharedSystem } from '@ars/testenv';

jest.setTimeout(180_000);

const system = sharedSystem();

// One account (with its reviewed pull request) and a PAT per use: the MCP client, REST checks, and
// the sandboxes' polling each stay well under the per-PAT limit of 60 requests a minute.
let c: AutomationClient & { account: Account };
let rest: Record<string, string>;
let sandboxes: SandboxesClient;
let client: Client;
beforeAll(async () => {
  c = await automationClient(system().baseUrl, { pullRequest: true });
  const [mcpToken, restToken, ...pollTokens] = await Promise.all(
    Array.from({ length: 5 }, (_, i) => createToken(system().baseUrl, c.account, { name: `tool-effects-${i}` })),
  );
  rest = bearer(restToken?.token ?? '');
  sandboxes = new SandboxesClient(
    system().baseUrl,
    pollTokens.map((token) => token.token),
  );
  client = await connectMcp(system().baseUrl, mcpToken?.token ?? '');
}, 120_000);
afterAll(async () => {
  await client?.close();
});

/** A tool call that must succeed: its structuredContent (the route's data). */
async function succeeded<T>(name: string, args: Record<string, unknown> = {}): Promise<T> {
  const answer: ToolAnswer = await callTool(client, name, args);
  if (answer.isError !== false) throw new Error(`${name} answered ${JSON.stringify(answer)}`);
  return answer.structuredContent as T;
}

const restGet = async <T>(path: string): Promise<T> => dataOf(await call<T>(`${c.api}${path}`, { headers: rest }));

/** start → one agent node `work` → end. */
const oneAgent = (prompt: string) =>
  graphOf(
    [
      ['start', 'start'],
      ['work', 'agent', { agentId: c.agentId, prompt }],
      ['end', 'end'],
    ],
    [
      ['start', 'work'],
      ['work', 'end'],
    ],
  );

interface AutomationView {
  id: string;
  name: string;
  description: string | null;
  draftGraph: { nodes: { id: string; data: Record<string, unknown> }[] };
  publishedVersion: { versionNumber: number } | null;
}

describe('svc_create_sandbox creates a sandbox (or reuses a matching one) that REST lists and provisions', () => {
  test('the sandbox svc_create_sandbox answers is in REST GET /sandboxes and becomes ready; the same arguments again reuse it', async () => {
    const args = { repoId: c.repoId, workingBranch: 'mcp/tool-sandbox', createBranch: true };
    const { sandbox } = await succeeded<{ sandbox: Sandbox }>('svc_create_sandbox', args);
    expect(sandbox).toMatchObject({ repo_id: c.repoId, working_branch: 'mcp/tool-sandbox', status: 'provisioning' });
    const listed = dataOf(await sandboxes.list()).sandboxes;
    expect(listed.map((candidate) => candidate.id)).toContain(sandbox.id);
    const ready = await sandboxes.waitForStatus(sandbox.id, 'ready');
    expect(ready.sandbox.sandbox_id).toMatch(/^local-/);
    const again = await succeeded<{ sandbox: Sandbox }>('svc_create_sandbox', args);
    expect(again.sandbox).toMatchObject({ id: sandbox.id, status: 'ready' });
  });
});

describe('svc_list_sandboxes and svc_get_sandbox_logs show the caller’s sandboxes and a sandbox’s logs as REST does', () => {
  test('a sandbox created through REST is listed by svc_list_sandboxes, and svc_get_sandbox_logs reads its lifecycle as REST GET /sandboxes/{id}/logs', async () => {
    const made = await sandboxes.created({ repoId: c.repoId, workingBranch: 'mcp/rest-sandbox' });
    const ready = await sandboxes.waitForStatus(made.id, 'ready');
    const { sandboxes: listed } = await succeeded<{ sandboxes: Sandbox[] }>('svc_list_sandboxes');
    expect(listed.find((candidate) => candidate.id === made.id)).toMatchObject({ repo_id: c.repoId, working_branch: 'mcp/rest-sandbox', status: 'ready' });
    const logs = await succeeded<SandboxLogs>('svc_get_sandbox_logs', { sandboxId: made.id });
    expect(logs.sandbox).toMatchObject({ id: made.id, status: 'ready', sandbox_id: ready.sandbox.sandbox_id });
    const types = logs.lifecycle_events.map((event) => event.event_type);
    expect(types.slice(0, 3)).toEqual(['requested', 'provisioning', 'provisioned']);
    expect(types.slice(0, ready.lifecycle_events.length)).toEqual(ready.lifecycle_events.map((event) => event.event_type));
    const unknown = await callTool(client, 'svc_get_sandbox_logs', { sandboxId: 'sbx_no_such_sandbox' });
    expect([unknown.isError, unknown.structuredContent?.error]).toEqual([true, expect.objectContaining({ code: 'NOT_FOUND', status: 404 })]);
  });
});

describe('svc_update_automation replaces fields of the draft; the published version is unchanged until svc_publish_automation', () => {
  test('the new name, description and graph are in REST GET /automations/{id}; the published version is still version 1', async () => {
    const automationId = await publishAutomation(c, oneAgent('@say one'));
    const graph = oneAgent('@say two');
    const { automation } = await succeeded<{ automation: AutomationView }>('svc_update_automation', {
      automationId,
      name: 'Renamed by a tool',
      description: 'Its draft replaced through MCP',
      graph,
    });
    expect(automation.name).toBe('Renamed by a tool');
    const read = (await restGet<{ automation: AutomationView }>(`/automations/${automationId}`)).automation;
    expect(read).toMatchObject({
      id: automationId,
      name: 'Renamed by a tool',
      description: 'Its draft replaced through MCP',
      publishedVersion: { versionNumber: 1 },
    });
    expect(read.draftGraph.nodes.find((node) => node.id === 'work')?.data).toMatchObject({ prompt: '@say two' });
  });
});

describe('svc_set_automation_model sets the model an agent node uses (one of svc_list_models); svc_list_automation_runs lists the runs a trigger made', () => {
  test('svc_list_models answers REST GET /models; the model set with publish: true is in the draft, and the triggered run’s agent is started with it', async () => {
    const { models } = await succeeded<{ models: { id: string }[] }>('svc_list_models');
    expect(models.length).toBeGreaterThan(0);
    expect(models).toEqual((await restGet<{ models: { id: string }[] }>('/models')).models);
    const modelId = models[models.length - 1]?.id ?? '';
    const automationId = await publishAutomation(c, oneAgent('@model'));
    const { automation } = await succeeded<{ automation: AutomationView }>('svc_set_automation_model', {
      automationId,
      nodeId: 'work',
      modelId,
      publish: true,
    });
    expect(automation.publishedVersion?.versionNumber).toBe(2);
    const read = (await restGet<{ automation: AutomationView }>(`/automations/${automationId}`)).automation;
    expect(read.draftGraph.nodes.find((node) => node.id === 'work')?.data).toMatchObject({ modelId });
    expect(read.publishedVersion?.versionNumber).toBe(2);

    const runId = await triggerAutomation(c, automationId);
    const ended = await untilRun(c, automationId, runId, 'the run to end', (run) => !['pending', 'running'].includes(run.status));
    expect([ended.status, ended.versionNumber, ended.aiCalls[0]?.model]).toEqual(['success', 2, modelId]);
    // The stand-in agent's `@model` says the model it was started with.
    const agentRunId = ended.nodeRuns.find((node) => node.nodeId === 'work')?.agentRunId ?? '';
    const { events } = await restGet<{ events: { type: string; message: string | null }[] }>(`/runs/${agentRunId}/events`);
    expect(events.filter((event) => event.type === 'assistant_message').map((event) => event.message)).toContain(`model ${modelId}`);
    const { runs } = await succeeded<{ runs: { id: string; status: string; versionNumber: number }[] }>('svc_list_automation_runs', { automationId });
    expect(runs).toEqual([expect.objectContaining({ id: runId, status: 'success', versionNumber: 2 })]);
  });
});

describe('svc_rerun_pr_review queues a fresh review of a pull request (deferred while another runs on the same commit), and the review really runs', () => {
  test('on the development account’s reviewed pull request: queued, with deferred/started as the contract says, its attempt ending and its automation run readable by REST', async () => {
    const pullRequest = c.account.pullRequest;
    if (!pullRequest) throw new Error('the development account has no pull request');
    const rerun = await succeeded<{
      queued: boolean;
      started: boolean;
      deferred: boolean;
      reason: string | null;
      prNumber: number;
      repoId: string;
      jobRunId: string;
      workflowRunId: string;
    }>('svc_rerun_pr_review', { repoId: pullRequest.repoId, prNumber: pullRequest.number });
    expect(rerun).toMatchObject({ queued: true, prNumber: pullRequest.number, repoId: pullRequest.repoId, jobRunId: expect.any(String) });
    // Started at once when the first review has ended; else deferred behind it (same head commit).
    expect(rerun.started).toBe(!rerun.deferred);
    if (rerun.deferred) expect(rerun.reason).toMatch(/^queued behind attempt \S+ on the same head commit$/);
    else expect(rerun.reason).toBeNull();
    const ended = await untilAttemptEnded(system(), c, rerun.workflowRunId, 240_000);
    expect([ended.status, ended.error, ended.automationRunId]).toEqual(['completed', null, rerun.jobRunId]);
    const detail = await restGet<{ run: { id: string; status: string; reviewFindings: { state: string }[] } }>(
      `/automations/${pullRequest.automationId}/runs/${rerun.jobRunId}`,
    );
    expect(detail.run).toMatchObject({ id: rerun.jobRunId, status: 'success' });
    expect(detail.run.reviewFindings.length).toBeGreaterThan(0);
  }, 300_000);
});
