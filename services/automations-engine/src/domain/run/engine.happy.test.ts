import { EngineSimulator, flow, oneAgent, SIMULATION_START, type SimulatorOptions } from '../../testing/engineSimulator.js';
import type { FlowGraph } from '../flowGraph.js';

const agent = (agentId: string, prompt = 'do it', extra: Record<string, unknown> = {}): Record<string, unknown> => ({ agentId, prompt, ...extra });

function run(graph: FlowGraph, options: SimulatorOptions = {}): EngineSimulator {
  const simulator = new EngineSimulator(graph, options);
  simulator.run();
  return simulator;
}

describe('start: the run begins at the start node and follows its one edge', () => {
  test('start → agent → end runs one agent and ends success, the start node outputting the input', () => {
    const simulator = run(oneAgent(agent('agent-1')), { input: { issue: 7 } });
    expect(simulator.records.run).toMatchObject({ status: 'success' });
    expect(simulator.started).toHaveLength(1);
    expect(simulator.records.nodeRuns.start).toMatchObject({ status: 'success', output: { issue: 7 } });
    expect(Object.values(simulator.records.nodeRuns).map((nodeRun) => nodeRun.status)).toEqual(['success', 'success', 'success']);
  });
});

describe('agent: an agent node starts its agent run and waits for it', () => {
  const graph = oneAgent(agent('agent-1', 'fix issue {{ input.issue }}'));

  test('the agent run is started with the key <automationRunId>:<nodeId>:<attempt>, the rendered prompt and createBranch true', () => {
    const simulator = new EngineSimulator(graph, { input: { issue: 7 }, agentOutcomes: { a: 'never' } });
    simulator.trigger();
    expect(simulator.started).toEqual([
      {
        type: 'startAgentRun',
        nodeId: 'a',
        attempt: 1,
        idempotencyKey: 'arun-1:a:1',
        repoId: 'repo-1',
        agentId: 'agent-1',
        modelId: null,
        harness: 'codex',
        prompt: 'fix issue 7',
        createBranch: true,
      },
    ]);
    expect(simulator.records.run.status).toBe('running');
    expect(simulator.records.nodeRuns.a).toMatchObject({ status: 'running', agentRunId: 'agent-run-1' });
  });

  test("the model is the node's modelId, else the agent's; the harness the node's, else by the model's provider", () => {
    const catalog = { agents: { 'agent-1': { modelId: 'sonnet' } }, models: { sonnet: { provider: 'Anthropic' }, gpt: { provider: 'openai' } } };
    const byAgent = new EngineSimulator(graph, { catalog, input: { issue: 7 } });
    byAgent.trigger();
    expect(byAgent.started[0]).toMatchObject({ modelId: 'sonnet', harness: 'claude-code' });

    const overridden = oneAgent(agent('agent-1', 'x', { modelId: 'gpt' }));
    const byNode = new EngineSimulator(overridden, { catalog });
    byNode.trigger();
    expect(byNode.started[0]).toMatchObject({ modelId: 'gpt', harness: 'codex' });

    const chosen = oneAgent(agent('agent-1', 'x', { harness: 'codex' }));
    const byHarness = new EngineSimulator(chosen, { catalog });
    byHarness.trigger();
    expect(byHarness.started[0]).toMatchObject({ modelId: 'sonnet', harness: 'codex' });
  });

  test('its output is {runId, status, lastMessage, branch}, read as nodes.<id>.output', () => {
    const simulator = run(graph, { input: { issue: 7 } });
    expect(simulator.records.nodeRuns.a).toMatchObject({
      status: 'success',
      agentRunId: 'agent-run-1',
      output: { runId: 'agent-run-1', status: 'success', lastMessage: 'a done', branch: 'automation/a' },
    });
  });
});

describe('condition: follows its "true" or "false" edge; the untaken side is skipped', () => {
  const graph = flow(
    [
      ['start', 'start'],
      ['check', 'condition', { expression: 'input.severity == "high"' }],
      ['urgent', 'agent', agent('agent-1')],
      ['later', 'agent', agent('agent-2')],
      ['note', 'set_variable', { name: 'noted', value: 'true' }],
      ['end', 'end'],
    ],
    [
      ['start', 'check'],
      ['check', 'urgent', 'true'],
      ['check', 'later', 'false'],
      ['later', 'note'],
      ['urgent', 'end'],
      ['note', 'end'],
    ],
  );

  test('true on input: the "true" side runs, the "false" side and what only it reaches are skipped', () => {
    const simulator = run(graph, { input: { severity: 'high' } });
    expect(simulator.records.run).toMatchObject({ status: 'success' });
    expect(simulator.started.map((effect) => effect.nodeId)).toEqual(['urgent']);
    expect(simulator.records.nodeRuns.check).toMatchObject({ status: 'success', output: { result: true } });
    expect([simulator.statusOf('later'), simulator.statusOf('note'), simulator.statusOf('end')]).toEqual(['skipped', 'skipped', 'success']);
  });

  test('false on input: the "false" side runs, the "true" side is skipped', () => {
    const simulator = run(graph, { input: { severity: 'low' } });
    expect(simulator.records.run).toMatchObject({ status: 'success' });
    expect(simulator.started.map((effect) => effect.nodeId)).toEqual(['later']);
    expect([simulator.statusOf('urgent'), simulator.statusOf('note')]).toEqual(['skipped', 'success']);
  });
});

describe('set_variable: sets vars.<name>, read by later conditions and prompt interpolations', () => {
  test('a variable set from input feeds a condition and an agent prompt', () => {
    const graph = flow(
      [
        ['start', 'start'],
        ['count', 'set_variable', { name: 'labels', value: 'size(input.labels)' }],
        ['many', 'condition', { expression: 'vars.labels > 1' }],
        ['triage', 'agent', agent('agent-1', 'triage {{ vars.labels }} labels: {{ input.labels }}')],
        ['end', 'end'],
      ],
      [
        ['start', 'count'],
        ['count', 'many'],
        ['many', 'triage', 'true'],
        ['many', 'end', 'false'],
        ['triage', 'end'],
      ],
    );
    const simulator = run(graph, { input: { labels: ['bug', 'ui'] } });
    expect(simulator.records.run.vars).toEqual({ labels: 2 });
    expect(simulator.records.nodeRuns.count).toMatchObject({ status: 'success', output: { value: 2 } });
    expect(simulator.started.map((effect) => effect.prompt)).toEqual(['triage 2 labels: ["bug","ui"]']);
    expect(simulator.records.run).toMatchObject({ status: 'success' });

    const few = run(graph, { input: { labels: ['bug'] } });
    expect(few.started).toHaveLength(0);
    expect(few.statusOf('triage')).toBe('skipped');
    expect(few.records.run).toMatchObject({ status: 'success' });
  });
});

const parallelOfTwo = (mode: 'all' | 'any'): FlowGraph =>
  flow(
    [
      ['start', 'start'],
      ['fork', 'parallel'],
      ['left', 'agent', agent('agent-1')],
      ['right', 'agent', agent('agent-2')],
      ['merge', 'join', { mode }],
      ['after', 'agent', agent('agent-3', 'left said {{ nodes.left.output.lastMessage }}')],
      ['end', 'end'],
    ],
    [
      ['start', 'fork'],
      ['fork', 'left'],
      ['fork', 'right'],
      ['left', 'merge'],
      ['right', 'merge'],
      ['merge', 'after'],
      ['after', 'end'],
    ],
  );

describe('parallel: starts every branch at once', () => {
  test('both agents of a parallel are started in the same transition', () => {
    const simulator = new EngineSimulator(parallelOfTwo('all'));
    const { effects } = simulator.trigger();
    expect(effects.filter((effect) => effect.type === 'startAgentRun').map((effect) => effect.nodeId)).toEqual(['left', 'right']);
  });
});

describe('join all: waits for every branch of its parallel', () => {
  test('the join waits until both agents finished, then the run continues and ends success', () => {
    const simulator = new EngineSimulator(parallelOfTwo('all'));
    simulator.trigger();
    simulator.advance();
    expect(simulator.records.nodeRuns.merge).toMatchObject({ status: 'waiting', arrivals: ['left'] });
    expect(simulator.started).toHaveLength(2);
    simulator.run();
    expect(simulator.records.nodeRuns.merge).toMatchObject({ status: 'success', arrivals: ['left', 'right'] });
    expect(simulator.started.map((effect) => effect.nodeId)).toEqual(['left', 'right', 'after']);
    expect(simulator.started[2]?.prompt).toBe('left said left done');
    expect(simulator.records.run).toMatchObject({ status: 'success' });
  });
  test('a branch whose condition skips a side still arrives once; a nested parallel is closed by its own join first', () => {
    const graph = flow(
      [
        ['start', 'start'],
        ['outer', 'parallel'],
        ['check', 'condition', { expression: 'input.deep' }],
        ['shallow', 'set_variable', { name: 'shallow', value: 'true' }],
        ['inner', 'parallel'],
        ['x', 'agent', agent('agent-1')],
        ['y', 'agent', agent('agent-2')],
        ['innerJoin', 'join'],
        ['z', 'agent', agent('agent-3')],
        ['outerJoin', 'join'],
        ['end', 'end'],
      ],
      [
        ['start', 'outer'],
        ['outer', 'check'],
        ['outer', 'inner'],
        ['check', 'shallow', 'false'],
        ['check', 'outerJoin', 'true'],
        ['shallow', 'outerJoin'],
        ['inner', 'x'],
        ['inner', 'y'],
        ['x', 'innerJoin'],
        ['y', 'innerJoin'],
        ['innerJoin', 'z'],
        ['z', 'outerJoin'],
        ['outerJoin', 'end'],
      ],
    );
    const simulator = run(graph, { input: { deep: true } });
    expect(simulator.records.run).toMatchObject({ status: 'success' });
    expect(simulator.statusOf('shallow')).toBe('skipped');
    expect(simulator.records.nodeRuns.innerJoin?.arrivals).toEqual(['x', 'y']);
    expect(simulator.records.nodeRuns.outerJoin?.arrivals).toEqual(['check', 'z']);
    expect(simulator.started.map((effect) => effect.nodeId)).toEqual(['x', 'y', 'z']);
  });
});

describe('join any: continues with the first branch and cancels the rest', () => {
  test("the loser's node run is cancelled and its agent run gets a cancel effect", () => {
    const simulator = run(parallelOfTwo('any'), { agentOutcomes: { right: 'never' } });
    expect(simulator.records.run).toMatchObject({ status: 'success' });
    expect(simulator.statusOf('right')).toBe('cancelled');
    expect(simulator.cancelled).toEqual([{ type: 'cancelAgentRun', nodeId: 'right', idempotencyKey: 'arun-1:right:1', agentRunId: 'agent-run-2' }]);
    expect(simulator.started.map((effect) => effect.nodeId)).toEqual(['left', 'right', 'after']);
  });

  test("a losing branch's timer and event wait are cleared and its unreached nodes skipped", () => {
    const graph = flow(
      [
        ['start', 'start'],
        ['fork', 'parallel'],
        ['fast', 'set_variable', { name: 'winner', value: '"fast"' }],
        ['pause', 'delay', { seconds: 60 }],
        ['approval', 'await_event', { event: 'approved', timeoutSeconds: 600 }],
        ['slow', 'agent', agent('agent-1')],
        ['merge', 'join', { mode: 'any' }],
        ['a', 'agent', agent('agent-2')],
        ['end', 'end'],
      ],
      [
        ['start', 'fork'],
        ['fork', 'fast'],
        ['fork', 'pause'],
        ['fork', 'approval'],
        ['pause', 'slow'],
        ['approval', 'merge', 'received'],
        ['approval', 'merge', 'timeout'],
        ['fast', 'merge'],
        ['slow', 'merge'],
        ['merge', 'a'],
        ['a', 'end'],
      ],
    );
    const simulator = new EngineSimulator(graph);
    simulator.trigger();
    expect([simulator.statusOf('pause'), simulator.statusOf('approval'), simulator.statusOf('slow')]).toEqual(['cancelled', 'cancelled', 'skipped']);
    expect(simulator.timers.size).toBe(0);
    expect(simulator.waits.size).toBe(0);
    simulator.run();
    expect(simulator.records.run).toMatchObject({ status: 'success' });
    expect(simulator.started.map((effect) => effect.nodeId)).toEqual(['a']);
  });
});

describe('delay: a durable timer', () => {
  test('the run waits with a timer due after `seconds`, and continues when it fires', () => {
    const graph = flow(
      [
        ['start', 'start'],
        ['pause', 'delay', { seconds: 90 }],
        ['a', 'agent', agent('agent-1')],
        ['end', 'end'],
      ],
      [
        ['start', 'pause'],
        ['pause', 'a'],
        ['a', 'end'],
      ],
    );
    const simulator = new EngineSimulator(graph);
    simulator.trigger();
    expect(simulator.records.run.status).toBe('waiting');
    expect([...simulator.timers.values()]).toEqual([
      {
        type: 'setTimer',
        timerId: 'arun-1:pause:1:delay',
        nodeId: 'pause',
        attempt: 1,
        kind: 'delay',
        dueAt: new Date(SIMULATION_START + 90_000).toISOString(),
      },
    ]);
    expect(simulator.started).toHaveLength(0);
    simulator.run();
    expect(simulator.records.run).toMatchObject({ status: 'success' });
    expect(simulator.now).toBe(SIMULATION_START + 90_000);
    expect(simulator.started).toHaveLength(1);
  });
});

const awaitGraph = (match?: string): FlowGraph =>
  flow(
    [
      ['start', 'start'],
      ['approval', 'await_event', { event: 'approved', timeoutSeconds: 3600, ...(match === undefined ? {} : { match }) }],
      ['ship', 'agent', agent('agent-1', 'ship {{ event.data.version }}')],
      ['give-up', 'set_variable', { name: 'gaveUp', value: 'true' }],
      ['end', 'end'],
    ],
    [
      ['start', 'approval'],
      ['approval', 'ship', 'received'],
      ['approval', 'give-up', 'timeout'],
      ['ship', 'end'],
      ['give-up', 'end'],
    ],
  );

describe('await_event: continues on "received" or, after timeoutSeconds, on "timeout"', () => {
  test('received: a matching event continues on "received", clears the timer and wait, and is `event` after it', () => {
    const simulator = new EngineSimulator(awaitGraph('event.data.version.startsWith("2.")'));
    simulator.trigger();
    expect(simulator.records.run.status).toBe('waiting');
    expect(simulator.waits).toEqual(new Set(['approval:1']));
    simulator.send('approved', { version: '1.0' });
    simulator.send('deployed', { version: '2.0' });
    expect(simulator.statusOf('approval')).toBe('waiting');
    simulator.send('approved', { version: '2.1' });
    expect(simulator.waits.size).toBe(0);
    expect(simulator.timers.size).toBe(0);
    simulator.run();
    expect(simulator.records.run).toMatchObject({ status: 'success' });
    expect(simulator.started.map((effect) => effect.prompt)).toEqual(['ship 2.1']);
    expect(simulator.statusOf('give-up')).toBe('skipped');
    expect(simulator.records.nodeRuns.approval?.output).toEqual({ event: { name: 'approved', data: { version: '2.1' }, receivedAt: simulator.at } });
  });

  test('timed out: without a matching event the "timeout" side runs after timeoutSeconds', () => {
    const simulator = new EngineSimulator(awaitGraph());
    simulator.trigger();
    simulator.send('rejected');
    simulator.run();
    expect(simulator.records.run).toMatchObject({ status: 'success' });
    expect(simulator.now).toBe(SIMULATION_START + 3_600_000);
    expect(simulator.records.nodeRuns.approval).toMatchObject({ status: 'success', output: { timedOut: true } });
    expect([simulator.statusOf('ship'), simulator.statusOf('give-up')]).toEqual(['skipped', 'success']);
    expect(simulator.records.run.vars).toEqual({ gaveUp: true });
    expect(simulator.started).toHaveLength(0);
    expect(simulator.waits.size).toBe(0);
  });

  test('an event received before the node was reached is consumed when it is reached (the inbox)', () => {
    const graph = flow(
      [
        ['start', 'start'],
        ['pause', 'delay', { seconds: 10 }],
        ['approval', 'await_event', { event: 'approved', timeoutSeconds: 3600 }],
        ['ship', 'agent', agent('agent-1', 'ship {{ event.data.version }}')],
        ['end', 'end'],
      ],
      [
        ['start', 'pause'],
        ['pause', 'approval'],
        ['approval', 'ship', 'received'],
        ['approval', 'end', 'timeout'],
        ['ship', 'end'],
      ],
    );
    const simulator = new EngineSimulator(graph);
    simulator.trigger();
    simulator.send('approved', { version: '3.0' });
    expect(simulator.records.inbox).toMatchObject([{ name: 'approved' }]);
    simulator.run();
    expect(simulator.records.run).toMatchObject({ status: 'success' });
    expect(simulator.records.inbox[0]?.consumedBy).toBe('approval');
    expect(simulator.started.map((effect) => effect.prompt)).toEqual(['ship 3.0']);
    expect(simulator.effects.some((effect) => effect.type === 'waitForEvent')).toBe(false);
  });

  test('two await_event nodes waiting for the same name: one event continues the longest-waiting one', () => {
    const graph = flow(
      [
        ['start', 'start'],
        ['fork', 'parallel'],
        ['first', 'await_event', { event: 'go', timeoutSeconds: 60 }],
        ['pause', 'delay', { seconds: 5 }],
        ['second', 'await_event', { event: 'go', timeoutSeconds: 60 }],
        ['merge', 'join'],
        ['a', 'agent', agent('agent-1')],
        ['end', 'end'],
      ],
      [
        ['start', 'fork'],
        ['fork', 'first'],
        ['fork', 'pause'],
        ['pause', 'second'],
        ['first', 'merge', 'received'],
        ['first', 'merge', 'timeout'],
        ['second', 'merge', 'received'],
        ['second', 'merge', 'timeout'],
        ['merge', 'a'],
        ['a', 'end'],
      ],
    );
    const simulator = new EngineSimulator(graph);
    simulator.trigger();
    simulator.advance();
    expect([simulator.statusOf('first'), simulator.statusOf('second')]).toEqual(['waiting', 'waiting']);
    simulator.send('go');
    expect([simulator.statusOf('first'), simulator.statusOf('second')]).toEqual(['success', 'waiting']);
    simulator.send('go');
    simulator.run();
    expect(simulator.records.run).toMatchObject({ status: 'success' });
    expect(simulator.records.nodeRuns.second?.output).toMatchObject({ event: { name: 'go' } });
  });

  test('an event continues at most one await_event: a second await of the same name needs a second event', () => {
    const graph = flow(
      [
        ['start', 'start'],
        ['first', 'await_event', { event: 'approved', timeoutSeconds: 60 }],
        ['second', 'await_event', { event: 'approved', timeoutSeconds: 60 }],
        ['a', 'agent', agent('agent-1')],
        ['end', 'end'],
      ],
      [
        ['start', 'first'],
        ['first', 'second', 'received'],
        ['first', 'end', 'timeout'],
        ['second', 'a', 'received'],
        ['second', 'end', 'timeout'],
        ['a', 'end'],
      ],
    );
    const simulator = new EngineSimulator(graph);
    simulator.trigger();
    simulator.send('approved');
    expect([simulator.statusOf('first'), simulator.statusOf('second')]).toEqual(['success', 'waiting']);
    simulator.send('approved');
    simulator.run();
    expect(simulator.started).toHaveLength(1);
    expect(simulator.records.run).toMatchObject({ status: 'success' });
  });
});

describe('end: finishes the run success', () => {
  test('reaching end sets the run success with its end time', () => {
    const simulator = run(oneAgent(agent('agent-1')));
    expect(simulator.records.run).toMatchObject({ status: 'success', startedAt: simulator.at, endedAt: simulator.at });
    expect(simulator.records.run.error).toBeUndefined();
  });
});
