// Automations on the whole stack, through the public API, with real agent runs (the stand-in
// harnesses in sandboxes): an automation run survives kill -9 of the engine during an agent node, a
// delay and an await_event; every run finishes, no node runs twice, and the number of agent runs
// equals the number of agent nodes executed.
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { waitFor } from '@ars/testenv';
import { bearer, call, dataOf, tenant } from '../support/accounts.js';
import { systemForSuite } from '../support/system.js';

const system = systemForSuite({ AUTOMATIONS_SWEEP_INTERVAL_MS: '500', AUTOMATIONS_CHECK_AFTER_MS: '3000', AUTOMATIONS_TIMER_POLL_MS: '100' });

interface NodeRun {
  nodeId: string;
  status: string;
  agentRunId: string | null;
  output: Record<string, unknown> | null;
}
interface RunDetail {
  id: string;
  status: string;
  error: string | null;
  nodeRuns: NodeRun[];
  aiCalls: { nodeId: string; agentRunId: string; status: string }[];
  vars: Record<string, unknown>;
}

interface Client {
  api: string;
  auth: Record<string, string>;
  userId: string;
  repoId: string;
  installationId: number;
  agentId: string;
}

async function client(): Promise<Client> {
  const api = `${system().baseUrl}/api/v1/svc`;
  const { account, token } = await tenant(system().baseUrl);
  const auth = bearer(token.token);
  const agents = dataOf(await call<{ agents: { id: string }[] }>(`${api}/agents`, { headers: auth })).agents;
  return { api, auth, userId: account.userId, repoId: account.repos[0]?.id ?? '', installationId: account.installationId, agentId: agents[0]?.id ?? '' };
}

type Spec = [string, string, Record<string, unknown>?];
function graphOf(nodes: Spec[], edges: [string, string, string?][]) {
  return {
    nodes: nodes.map(([id, type, data], index) => ({ id, type, position: { x: index * 200, y: 0 }, data: data ?? {} })),
    edges: edges.map(([source, target, sourceHandle]) => ({ id: `${source}-${target}`, source, target, ...(sourceHandle ? { sourceHandle } : {}) })),
  };
}

async function startAutomation(c: Client, graph: unknown, input: Record<string, unknown> = {}): Promise<{ automationId: string; runId: string }> {
  const created = await call<{ automation: { id: string } }>(`${c.api}/automations`, {
    method: 'POST',
    headers: c.auth,
    json: { installationId: c.installationId, graph, publish: true },
  });
  const automationId = dataOf(created).automation.id;
  const triggered = await call<{ run: { jobRunId: string } }>(`${c.api}/automations/${automationId}/trigger`, {
    method: 'POST',
    headers: { ...c.auth, 'idempotency-key': randomUUID() },
    json: { repoId: c.repoId, input },
  });
  expect(triggered.status).toBe(202);
  return { automationId, runId: dataOf(triggered).run.jobRunId };
}

/** The run's detail; undefined while the engine is down or does not know it (`{run: null}`). */
async function detail(c: Client, automationId: string, runId: string): Promise<RunDetail | undefined> {
  return dataOf(await call<{ run: RunDetail | null }>(`${c.api}/automations/${automationId}/runs/${runId}`, { headers: c.auth })).run ?? undefined;
}

async function until(c: Client, automationId: string, runId: string, what: string, check: (run: RunDetail) => boolean, timeoutMs = 90_000): Promise<RunDetail> {
  let last: RunDetail | undefined;
  return waitFor(
    () => `${what} (last: ${last ? `${last.status} ${last.nodeRuns.map((n) => `${n.nodeId}=${n.status}`).join(' ')}` : 'none'})`,
    async () => {
      last = await detail(c, automationId, runId).catch(() => undefined);
      return last && check(last) ? last : undefined;
    },
    { timeoutMs, intervalMs: 250 },
  );
}

const nodeStatus = (run: RunDetail, nodeId: string) => run.nodeRuns.find((node) => node.nodeId === nodeId)?.status;

async function killAndRestartEngine(): Promise<void> {
  const engine = system().stack.services['automations-engine'];
  await engine.kill();
  await engine.start();
}

/** The user's agent runs as the runs service stores them: what was really started, whatever the engine says. */
async function agentRunsStartedFor(userId: string): Promise<number> {
  const mongo = await MongoClient.connect(system().mongoUrl);
  try {
    return await mongo.db('ars_runs').collection('runs').countDocuments({ userId });
  } finally {
    await mongo.close();
  }
}

describe('kill -9 of the engine during an agent node, a delay and an await_event: the run still finishes, each agent once', () => {
  test('start → agent → delay → await_event → agent → end, the engine killed at each wait', async () => {
    const c = await client();
    const graph = graphOf(
      [
        ['start', 'start'],
        ['plan', 'agent', { agentId: c.agentId, prompt: '@sleep 4000\n@say planned {{ input.ticket }}' }],
        ['pause', 'delay', { seconds: 3 }],
        ['approval', 'await_event', { event: 'approved', timeoutSeconds: 600 }],
        ['ship', 'agent', { agentId: c.agentId, prompt: '@say shipping after {{ nodes.plan.output.lastMessage }}' }],
        ['end', 'end'],
      ],
      [
        ['start', 'plan'],
        ['plan', 'pause'],
        ['pause', 'approval'],
        ['approval', 'ship', 'received'],
        ['approval', 'end', 'timeout'],
        ['ship', 'end'],
      ],
    );
    const { automationId, runId } = await startAutomation(c, graph, { ticket: 42 });

    await until(c, automationId, runId, 'the plan agent running', (run) => run.nodeRuns.some((node) => node.nodeId === 'plan' && node.agentRunId !== null));
    await killAndRestartEngine();
    await until(c, automationId, runId, 'the delay waiting', (run) => nodeStatus(run, 'pause') === 'waiting');
    await killAndRestartEngine();
    await until(c, automationId, runId, 'the await waiting', (run) => nodeStatus(run, 'approval') === 'waiting');
    await killAndRestartEngine();
    const sent = await call<{ deliveredTo: number }>(`${c.api}/automations/events`, {
      method: 'POST',
      headers: c.auth,
      json: { name: 'approved', data: { by: 'ops' } },
    });
    expect(sent.status).toBe(202);

    const run = await until(c, automationId, runId, 'success', (current) => current.status === 'success');
    expect(run.nodeRuns.map((node) => [node.nodeId, node.status])).toEqual([
      ['start', 'success'],
      ['plan', 'success'],
      ['pause', 'success'],
      ['approval', 'success'],
      ['ship', 'success'],
      ['end', 'success'],
    ]);
    const plan = run.nodeRuns.find((node) => node.nodeId === 'plan');
    expect(plan?.output).toMatchObject({ status: 'success', lastMessage: 'planned 42' });
    expect(run.aiCalls.map((call) => call.nodeId).sort()).toEqual(['plan', 'ship']);
    expect(await agentRunsStartedFor(c.userId)).toBe(2);

    // Agent runs belong to the automation's owner and read like any other run.
    const ship = run.nodeRuns.find((node) => node.nodeId === 'ship');
    const agentRun = await call<{ run: { status: string; branch: { base: string; working: string } } }>(`${c.api}/runs/${ship?.agentRunId}`, {
      headers: c.auth,
    });
    expect(dataOf(agentRun).run.status).toBe('success');
    expect(dataOf(agentRun).run.branch.working).not.toBe(dataOf(agentRun).run.branch.base);
  }, 240_000);
});
