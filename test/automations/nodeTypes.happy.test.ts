// Each node type on the whole stack, through the public API, with real agent runs (the stand-in
// harnesses in real sandboxes, directives in the prompts): condition both ways, set_variable feeding
// a condition and a prompt, parallel with join all and join any (the loser's agent run cancelled),
// await_event timed out, a failing agent; 20 racing triggers with one key; a run pinned to its
// version; the model override reaching the harness.
import { randomUUID } from 'node:crypto';
import { waitFor, sharedSystem } from '@ars/testenv';
import { call, dataOf } from '../support/accounts.js';
import {
  automationClient,
  graphOf,
  nodeStatuses,
  publishAutomation,
  startAutomation,
  triggerAutomation,
  untilRun,
  type AutomationClient,
} from '../support/automations.js';

const system = sharedSystem();

// A user (and PAT) per test: a PAT may make 60 requests a minute, and waiting on a run polls.
let c: AutomationClient;
beforeEach(async () => {
  c = await automationClient(system().baseUrl);
}, 60_000);

const agent = (prompt: string, extra: Record<string, unknown> = {}) => ({ agentId: c.agentId, prompt, ...extra });
const ended = (status: string) => status === 'success' || status === 'failed' || status === 'cancelled';

/** The messages of an agent run as the public API shows them (`GET /runs/{id}/events`). */
async function agentMessages(agentRunId: string | null): Promise<string[]> {
  const answer = await call<{ events: { type: string; message: string | null }[] }>(`${c.api}/runs/${agentRunId ?? ''}/events`, { headers: c.auth });
  return dataOf(answer)
    .events.filter((event) => event.type === 'assistant_message')
    .map((event) => event.message ?? '');
}

describe('condition and set_variable: the variable feeds the condition and the prompt; the other side is skipped', () => {
  test.each([
    [20, 'big', 'small'],
    [3, 'small', 'big'],
  ])(
    'input.size %d takes %s',
    async (size, taken, skipped) => {
      const graph = graphOf(
        [
          ['start', 'start'],
          ['set', 'set_variable', { name: 'label', value: 'input.size > 10 ? "big" : "small"' }],
          ['check', 'condition', { expression: 'vars.label == "big"' }],
          ['big', 'agent', agent('@say handling a {{ vars.label }} one')],
          ['small', 'agent', agent('@say handling a {{ vars.label }} one')],
          ['end', 'end'],
        ],
        [
          ['start', 'set'],
          ['set', 'check'],
          ['check', 'big', 'true'],
          ['check', 'small', 'false'],
          ['big', 'end'],
          ['small', 'end'],
        ],
      );
      const { automationId, runId } = await startAutomation(c, graph, { size });
      const run = await untilRun(c, automationId, runId, 'ended', (current) => ended(current.status));
      expect(run).toMatchObject({ status: 'success' });
      expect(nodeStatuses(run)).toMatchObject({ check: 'success', [taken]: 'success', [skipped]: 'skipped', end: 'success' });
      const node = run.nodeRuns.find((candidate) => candidate.nodeId === taken);
      expect(await agentMessages(node?.agentRunId ?? null)).toContain(`handling a ${taken} one`);
      expect(run.aiCalls.map((aiCall) => aiCall.nodeId)).toEqual([taken]);
    },
    120_000,
  );
});

describe('parallel and join: all waits for both agents; any continues with the first and cancels the other’s agent run', () => {
  const parallel = (mode: 'all' | 'any', slowPrompt: string) =>
    graphOf(
      [
        ['start', 'start'],
        ['fan', 'parallel'],
        ['fast', 'agent', agent('@say fast')],
        ['slow', 'agent', agent(slowPrompt)],
        ['join', 'join', { mode }],
        ['end', 'end'],
      ],
      [
        ['start', 'fan'],
        ['fan', 'fast'],
        ['fan', 'slow'],
        ['fast', 'join'],
        ['slow', 'join'],
        ['join', 'end'],
      ],
    );

  test('join all: both agent runs succeed, then the join and the end', async () => {
    const { automationId, runId } = await startAutomation(c, parallel('all', '@sleep 1500\n@say slow'));
    const run = await untilRun(c, automationId, runId, 'ended', (current) => ended(current.status));
    expect(run).toMatchObject({ status: 'success' });
    expect(nodeStatuses(run)).toMatchObject({ fast: 'success', slow: 'success', join: 'success', end: 'success' });
    expect(run.aiCalls.map((aiCall) => aiCall.status)).toEqual(['success', 'success']);
  }, 120_000);

  test('join any: the fast one wins; the slow node is cancelled and so is its agent run', async () => {
    const { automationId, runId } = await startAutomation(c, parallel('any', '@sleep 60000\n@say too late'));
    const run = await untilRun(c, automationId, runId, 'ended', (current) => ended(current.status));
    expect(run).toMatchObject({ status: 'success' });
    expect(nodeStatuses(run)).toMatchObject({ fast: 'success', slow: 'cancelled', join: 'success' });
    const slowRunId = run.nodeRuns.find((node) => node.nodeId === 'slow')?.agentRunId ?? '';
    expect(slowRunId).not.toBe('');
    const slowStatus = await waitFor('the slow agent run cancelled', async () => {
      const status = dataOf(await call<{ run: { status: string } }>(`${c.api}/runs/${slowRunId}`, { headers: c.auth })).run.status;
      return ended(status) ? status : undefined;
    });
    expect(slowStatus).toBe('cancelled');
  }, 120_000);
});

describe('await_event with no event in timeoutSeconds continues on "timeout"', () => {
  test('timeout 1 s: the timeout side runs, the received side is skipped', async () => {
    const graph = graphOf(
      [
        ['start', 'start'],
        ['approval', 'await_event', { event: 'approved', timeoutSeconds: 1 }],
        ['late', 'agent', agent('@say nobody approved')],
        ['ship', 'agent', agent('@say shipping')],
        ['end', 'end'],
      ],
      [
        ['start', 'approval'],
        ['approval', 'ship', 'received'],
        ['approval', 'late', 'timeout'],
        ['late', 'end'],
        ['ship', 'end'],
      ],
    );
    const { automationId, runId } = await startAutomation(c, graph);
    const run = await untilRun(c, automationId, runId, 'ended', (current) => ended(current.status));
    expect(run).toMatchObject({ status: 'success' });
    expect(nodeStatuses(run)).toMatchObject({ approval: 'success', late: 'success', ship: 'skipped' });
  }, 120_000);
});

describe('a failing agent fails its node and the automation run, naming the node', () => {
  test('@fail in the agent’s prompt', async () => {
    const graph = graphOf(
      [
        ['start', 'start'],
        ['work', 'agent', agent('@fail the build is broken')],
        ['end', 'end'],
      ],
      [
        ['start', 'work'],
        ['work', 'end'],
      ],
    );
    const { automationId, runId } = await startAutomation(c, graph);
    const run = await untilRun(c, automationId, runId, 'ended', (current) => ended(current.status));
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/^node "work" failed: agent run .+ failed/);
    expect(nodeStatuses(run)).toEqual({ start: 'success', work: 'failed' });
  }, 120_000);
});

describe('triggers: 20 racing with one key make one run; a run keeps its version; the model override reaches the harness', () => {
  const oneAgent = (prompt: string, extra: Record<string, unknown> = {}) =>
    graphOf(
      [
        ['start', 'start'],
        ['work', 'agent', agent(prompt, extra)],
        ['end', 'end'],
      ],
      [
        ['start', 'work'],
        ['work', 'end'],
      ],
    );

  test('20 racing triggers with one key: one automation run, one agent run', async () => {
    const automationId = await publishAutomation(c, oneAgent('@say once'));
    const key = randomUUID();
    const runIds = await Promise.all(Array.from({ length: 20 }, () => triggerAutomation(c, automationId, {}, key)));
    expect(new Set(runIds).size).toBe(1);
    const run = await untilRun(c, automationId, runIds[0] ?? '', 'ended', (current) => ended(current.status));
    expect(run.aiCalls).toHaveLength(1);
    const list = await call<{ runs: unknown[] }>(`${c.api}/automations/${automationId}/runs`, { headers: c.auth });
    expect(dataOf(list).runs).toHaveLength(1);
  }, 120_000);

  test('publishing while a run waits leaves it on its version; the next trigger takes the new one', async () => {
    const first = graphOf(
      [
        ['start', 'start'],
        ['pause', 'delay', { seconds: 2 }],
        ['work', 'agent', agent('@say version one')],
        ['end', 'end'],
      ],
      [
        ['start', 'pause'],
        ['pause', 'work'],
        ['work', 'end'],
      ],
    );
    const { automationId, runId } = await startAutomation(c, first);
    const put = await call(`${c.api}/automations/${automationId}`, { method: 'PUT', headers: c.auth, json: { graph: oneAgent('@say version two') } });
    expect(put.status).toBe(200);
    expect((await call(`${c.api}/automations/${automationId}/publish`, { method: 'POST', headers: c.auth })).status).toBe(200);
    const pinned = await untilRun(c, automationId, runId, 'ended', (current) => ended(current.status));
    expect([pinned.status, pinned.versionNumber]).toEqual(['success', 1]);
    expect(await agentMessages(pinned.nodeRuns.find((node) => node.nodeId === 'work')?.agentRunId ?? null)).toContain('version one');
    const nextId = await triggerAutomation(c, automationId);
    const next = await untilRun(c, automationId, nextId, 'ended', (current) => ended(current.status));
    expect(next.versionNumber).toBe(2);
    expect(await agentMessages(next.nodeRuns.find((node) => node.nodeId === 'work')?.agentRunId ?? null)).toContain('version two');
  }, 120_000);

  test('an agent node with modelId: its agent run tells the model it was started with (@model), and the AI call names it', async () => {
    const models = dataOf(await call<{ models: { id: string }[] }>(`${c.api}/models`, { headers: c.auth })).models;
    const modelId = models[0]?.id ?? '';
    const { automationId, runId } = await startAutomation(c, oneAgent('@model', { modelId }));
    const run = await untilRun(c, automationId, runId, 'ended', (current) => ended(current.status));
    expect(run).toMatchObject({ status: 'success' });
    const work = run.nodeRuns.find((node) => node.nodeId === 'work');
    expect(await agentMessages(work?.agentRunId ?? null)).toContain(`model ${modelId}`);
    expect(run.aiCalls[0]?.model).toBe(modelId);
  }, 120_000);
});
