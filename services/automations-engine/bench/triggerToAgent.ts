// `npm run --silent bench:trigger -w services/automations-engine` (after `npm run build`): automations
// through the gateway on the whole local stack (every service a process, the stand-in harnesses).
// BENCH_TRIGGERS (default 10) triggers, one after another, of each of two published graphs, after
// BENCH_WARMUP (default 1) unmeasured rounds:
//   - short: start → agent → end;
//   - long:  start → (set_variable → condition)×24 → agent → end (50 nodes before the agent's end).
// For each trigger, on the server's clocks (so polling adds nothing): the automation run's
// `createdAt` → its agent run's `createdAt` in the runs service ("trigger → first agent run
// started"), p50 and max. The long graph's extra time over the short one's, per extra node, is the
// engine's overhead per node with its storage (one compare-and-set per transition).
// KAFKA_BROKERS / MONGO_URL / REDIS_URL to use real servers instead of the local stand-ins;
// BENCH_BASE_URL to use a running system's gateway and start no stack (startBenchStack).
import { randomBytes } from 'node:crypto';
import { startBenchStack } from '@ars/stack';

const TRIGGERS = Number(process.env.BENCH_TRIGGERS ?? 10);
// Warm-up rounds before the measured ones (consumer groups joined, code paths hot); CI's smoke form
// runs none: it checks that the script works, and each round is two whole automation runs.
const WARMUP_ROUNDS = Number(process.env.BENCH_WARMUP ?? 1);
const PAIRS = 24;

interface Envelope<T> {
  ok: boolean;
  data: T;
  error?: { code: string; message: string };
}

async function json<T>(url: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(url, init);
  const body = (await response.json()) as Envelope<T>;
  if (!body.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${JSON.stringify(body.error)}`);
  return body.data;
}

/** A dev account with several PATs taken in turn (each PAT may make 60 requests a minute). */
interface User {
  tokens: string[];
  turn: number;
  repoId: string;
  installationId: number;
}

function headersOf(user: User, extra: Record<string, string> = {}): Record<string, string> {
  user.turn = (user.turn + 1) % user.tokens.length;
  return { 'content-type': 'application/json', authorization: `Bearer ${user.tokens[user.turn] ?? ''}`, ...extra };
}

async function newUser(baseUrl: string, tokenCount = 20): Promise<User> {
  const account = await json<{ sessionCookie: string; installationId: number; repos: { id: string }[] }>(`${baseUrl}/api/dev/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  const tokens: string[] = [];
  for (let i = 0; i < tokenCount; i += 1) {
    const created = await json<{ token: string }>(`${baseUrl}/api/settings/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: account.sessionCookie },
      body: JSON.stringify({ name: `bench-${i}` }),
    });
    tokens.push(created.token);
  }
  return { tokens, turn: 0, repoId: account.repos[0]?.id ?? '', installationId: account.installationId };
}

type Node = { id: string; type: string; position: { x: number; y: number }; data: Record<string, unknown> };
type Edge = { id: string; source: string; target: string; sourceHandle?: string };

function graphOf(agentId: string, pairs: number): { nodes: Node[]; edges: Edge[] } {
  const node = (id: string, type: string, data: Record<string, unknown> = {}): Node => ({ id, type, position: { x: 0, y: 0 }, data });
  const nodes = [node('start', 'start'), node('agent', 'agent', { agentId, prompt: '@say benchmark after {{ vars.v0 }}' }), node('end', 'end')];
  const edges: Edge[] = [];
  let previous = 'start';
  let handle: string | undefined;
  nodes.push(node('set-first', 'set_variable', { name: 'v0', value: 'input.base' }));
  edges.push({ id: 'e-first', source: previous, target: 'set-first' });
  previous = 'set-first';
  for (let i = 1; i < pairs * 2 - 1; i += 2) {
    nodes.push(node(`check${i}`, 'condition', { expression: `vars.v${i - 1} >= input.base` }));
    edges.push({ id: `e${i}a`, source: previous, target: `check${i}`, ...(handle ? { sourceHandle: handle } : {}) });
    edges.push({ id: `e${i}f`, source: `check${i}`, target: 'end', sourceHandle: 'false' });
    nodes.push(node(`set${i + 1}`, 'set_variable', { name: `v${i + 1}`, value: `vars.v${i - 1} + 1` }));
    edges.push({ id: `e${i}t`, source: `check${i}`, target: `set${i + 1}`, sourceHandle: 'true' });
    previous = `set${i + 1}`;
    handle = undefined;
  }
  edges.push({ id: 'to-agent', source: previous, target: 'agent' });
  edges.push({ id: 'agent-end', source: 'agent', target: 'end' });
  return { nodes, edges };
}

interface RunDetail {
  status: string;
  createdAt: string;
  nodeRuns: { nodeId: string; agentRunId: string | null }[];
}

async function poll<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** One trigger to its end: ms from the automation run's creation to its agent run's creation, and the node count before the agent. */
async function triggerOnce(api: string, user: User, automationId: string): Promise<{ toAgentMs: number; nodesBeforeAgent: number }> {
  const triggered = await json<{ run: { jobRunId: string } }>(`${api}/automations/${automationId}/trigger`, {
    method: 'POST',
    headers: headersOf(user, { 'idempotency-key': randomBytes(8).toString('hex') }),
    body: JSON.stringify({ repoId: user.repoId, input: { base: 1 } }),
  });
  const runId = triggered.run.jobRunId;
  const detail = () => json<{ run: RunDetail }>(`${api}/automations/${automationId}/runs/${runId}`, { headers: headersOf(user) }).then((answer) => answer.run);
  const withAgent = await poll('the agent run', async () => {
    const run = await detail();
    return run.nodeRuns.some((node) => node.nodeId === 'agent' && node.agentRunId) ? run : undefined;
  });
  const agentRunId = withAgent.nodeRuns.find((node) => node.nodeId === 'agent')?.agentRunId ?? '';
  const agentRun = await json<{ run: { createdAt: string } }>(`${api}/runs/${agentRunId}`, { headers: headersOf(user) });
  const ended = await poll('the automation run’s end', async () => {
    const run = await detail();
    return ['success', 'failed', 'cancelled'].includes(run.status) ? run : undefined;
  });
  if (ended.status !== 'success') throw new Error(`automation run ${runId} ended ${ended.status}`);
  return { toAgentMs: Date.parse(agentRun.run.createdAt) - Date.parse(withAgent.createdAt), nodesBeforeAgent: withAgent.nodeRuns.length - 1 };
}

const percentile = (values: number[], q: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? 0;

const stack = await startBenchStack();
try {
  const api = `${stack.baseUrl}/api/v1/svc`;
  const user = await newUser(stack.baseUrl);
  const agentId = (await json<{ agents: { id: string }[] }>(`${api}/agents`, { headers: headersOf(user) })).agents[0]?.id ?? '';
  const publish = async (graph: unknown): Promise<string> =>
    (
      await json<{ automation: { id: string } }>(`${api}/automations`, {
        method: 'POST',
        headers: headersOf(user),
        body: JSON.stringify({ installationId: user.installationId, name: 'bench', graph, publish: true }),
      })
    ).automation.id;
  const short = await publish(graphOf(agentId, 0));
  const long = await publish(graphOf(agentId, PAIRS));

  for (let round = 0; round < WARMUP_ROUNDS; round += 1) {
    await triggerOnce(api, user, short);
    await triggerOnce(api, user, long);
  }

  const shortMs: number[] = [];
  const longMs: number[] = [];
  let longNodes = 0;
  let shortNodes = 0;
  // Interleaved, so a change in the machine's load touches both alike.
  for (let i = 0; i < TRIGGERS; i += 1) {
    const a = await triggerOnce(api, user, short);
    shortMs.push(a.toAgentMs);
    shortNodes = a.nodesBeforeAgent;
    const b = await triggerOnce(api, user, long);
    longMs.push(b.toAgentMs);
    longNodes = b.nodesBeforeAgent;
  }
  const p50Short = percentile(shortMs, 0.5);
  const p50Long = percentile(longMs, 0.5);
  const ms = (value: number): string => `${value.toFixed(0)} ms`;
  console.log(`automations through the gateway, local stack, stand-in harness, Node ${process.version}; ${TRIGGERS} triggers of each graph`);
  console.log(`trigger → first agent run started, ${shortNodes} node(s) before the agent: p50 ${ms(p50Short)}, max ${ms(Math.max(...shortMs))}`);
  console.log(`trigger → first agent run started, ${longNodes} nodes before the agent: p50 ${ms(p50Long)}, max ${ms(Math.max(...longMs))}`);
  console.log(
    `engine overhead per node with its storage: (${ms(p50Long)} − ${ms(p50Short)}) / ${longNodes - shortNodes} = ${((p50Long - p50Short) / (longNodes - shortNodes)).toFixed(2)} ms`,
  );
} finally {
  await stack.stop();
}
