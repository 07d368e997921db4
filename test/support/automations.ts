// Automations through the public API on the whole stack: a tenant with its first agent, graphs
// written as lists, publish + trigger in one call, a run's detail and waiting on it.
import { randomUUID } from 'node:crypto';
import { waitFor } from '@ars/testenv';
import { bearer, call, createAccount, createToken, dataOf, type Account } from './accounts.js';

export interface AutomationClient {
  api: string;
  auth: Record<string, string>;
  userId: string;
  repoId: string;
  installationId: number;
  agentId: string;
}

export interface NodeRunView {
  nodeId: string;
  status: string;
  agentRunId: string | null;
  input: Record<string, unknown> | null;
  output: Record<string, unknown> | null;
}

export interface RunDetailView {
  id: string;
  status: string;
  error: string | null;
  versionNumber: number;
  nodeRuns: NodeRunView[];
  aiCalls: { nodeId: string; agentRunId: string; status: string; model: string | null }[];
  vars: Record<string, unknown>;
}

/**
 * A new user of the stack with a PAT, its first repository, its dev installation and its first agent.
 * `accountBody` as the development account route takes it (`{pullRequest: true}`: a reviewed pull request).
 */
export async function automationClient(baseUrl: string, accountBody: Record<string, unknown> = {}): Promise<AutomationClient & { account: Account }> {
  const api = `${baseUrl}/api/v1/svc`;
  const account = await createAccount(baseUrl, accountBody);
  const auth = bearer((await createToken(baseUrl, account)).token);
  const agents = dataOf(await call<{ agents: { id: string }[] }>(`${api}/agents`, { headers: auth })).agents;
  return {
    api,
    auth,
    userId: account.userId,
    repoId: account.repos[0]?.id ?? '',
    installationId: account.installationId,
    agentId: agents[0]?.id ?? '',
    account,
  };
}

/** `[id, type, data]` and `[source, target, sourceHandle?]`. */
export function graphOf(nodes: [string, string, Record<string, unknown>?][], edges: [string, string, string?][]) {
  return {
    nodes: nodes.map(([id, type, data], index) => ({ id, type, position: { x: index * 200, y: 0 }, data: data ?? {} })),
    edges: edges.map(([source, target, sourceHandle]) => ({ id: `${source}-${target}`, source, target, ...(sourceHandle ? { sourceHandle } : {}) })),
  };
}

/** Creates the automation published (version 1). */
export async function publishAutomation(c: AutomationClient, graph: unknown): Promise<string> {
  const created = await call<{ automation: { id: string } }>(`${c.api}/automations`, {
    method: 'POST',
    headers: c.auth,
    json: { installationId: c.installationId, graph, publish: true },
  });
  return dataOf(created).automation.id;
}

/** `POST …/trigger` with a key (fresh when absent): the run's id. */
export async function triggerAutomation(
  c: AutomationClient,
  automationId: string,
  input: Record<string, unknown> = {},
  key: string = randomUUID(),
): Promise<string> {
  const triggered = await call<{ run: { jobRunId: string } }>(`${c.api}/automations/${automationId}/trigger`, {
    method: 'POST',
    headers: { ...c.auth, 'idempotency-key': key },
    json: { repoId: c.repoId, input },
  });
  if (triggered.status !== 202) throw new Error(`trigger answered ${triggered.status} ${triggered.text}`);
  return dataOf(triggered).run.jobRunId;
}

export async function startAutomation(
  c: AutomationClient,
  graph: unknown,
  input: Record<string, unknown> = {},
): Promise<{ automationId: string; runId: string }> {
  const automationId = await publishAutomation(c, graph);
  return { automationId, runId: await triggerAutomation(c, automationId, input) };
}

/** The run's detail; undefined while the engine is down or does not know it (`{run: null}`). */
export async function runDetail(c: AutomationClient, automationId: string, runId: string): Promise<RunDetailView | undefined> {
  return dataOf(await call<{ run: RunDetailView | null }>(`${c.api}/automations/${automationId}/runs/${runId}`, { headers: c.auth })).run ?? undefined;
}

export async function untilRun(
  c: AutomationClient,
  automationId: string,
  runId: string,
  what: string,
  check: (run: RunDetailView) => boolean,
  timeoutMs = 90_000,
): Promise<RunDetailView> {
  let last: RunDetailView | undefined;
  return waitFor(
    () => `${what} (last: ${last ? `${last.status} ${last.nodeRuns.map((n) => `${n.nodeId}=${n.status}`).join(' ')}` : 'none'})`,
    async () => {
      last = await runDetail(c, automationId, runId).catch(() => undefined);
      return last && check(last) ? last : undefined;
    },
    // A little over a second apart: a PAT may make 60 requests in any 60 s. Twice a second spent that
    // in 30 s, and the log then refused every poll for the next 30 s: a 3 s wait went unseen.
    { timeoutMs, intervalMs: 1_100 },
  );
}

export const nodeStatuses = (run: RunDetailView): Record<string, string> => Object.fromEntries(run.nodeRuns.map((node) => [node.nodeId, node.status]));
