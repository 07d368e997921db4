// Automations on the whole stack, through the public API, with real agent runs (the stand-in
// harnesses in sandboxes): an automation run survives kill -9 of the engine during an agent node, a
// delay and an await_event; every run finishes, no node runs twice, and the number of agent runs
// equals the number of agent nodes executed.
import { MongoClient } from 'mongodb';
import { call, dataOf } from '../support/accounts.js';
import { automationClient, graphOf, nodeStatuses, startAutomation, untilRun } from '../support/automations.js';
import { ownSystem } from '@ars/testenv';

const system = ownSystem('it kills and restarts the automations engine', {
  AUTOMATIONS_SWEEP_INTERVAL_MS: '500',
  AUTOMATIONS_CHECK_AFTER_MS: '3000',
  AUTOMATIONS_TIMER_POLL_MS: '100',
});

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
    const c = await automationClient(system().baseUrl);
    const graph = graphOf(
      [
        ['start', 'start'],
        ['plan', 'agent', { agentId: c.agentId, prompt: '@sleep 4000\n@say planned {{ input.ticket }}' }],
        // Long enough to be seen waiting (polled once a second) on a loaded machine, the engine killed in it.
        ['pause', 'delay', { seconds: 8 }],
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

    await untilRun(c, automationId, runId, 'the plan agent running', (run) => run.nodeRuns.some((node) => node.nodeId === 'plan' && node.agentRunId !== null));
    await killAndRestartEngine();
    await untilRun(c, automationId, runId, 'the delay waiting', (run) => nodeStatuses(run).pause === 'waiting');
    await killAndRestartEngine();
    await untilRun(c, automationId, runId, 'the await waiting', (run) => nodeStatuses(run).approval === 'waiting');
    await killAndRestartEngine();
    const sent = await call<{ deliveredTo: number }>(`${c.api}/automations/events`, {
      method: 'POST',
      headers: c.auth,
      json: { name: 'approved', data: { by: 'ops' } },
    });
    expect(sent.status).toBe(202);

    const run = await untilRun(c, automationId, runId, 'success', (current) => current.status === 'success');
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
    expect(dataOf(agentRun).run).toMatchObject({ status: 'success' });
    expect(dataOf(agentRun).run.branch.working).not.toBe(dataOf(agentRun).run.branch.base);
  }, 240_000);
});
