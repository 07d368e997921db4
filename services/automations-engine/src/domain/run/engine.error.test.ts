import { EngineSimulator, flow, oneAgent } from '../../testing/engineSimulator.js';
import type { FlowGraph } from '../flowGraph.js';
import { NotExecutableError, prepareGraph } from './index.js';

const single = (prompt = 'do it'): FlowGraph => oneAgent({ agentId: 'agent-1', prompt }, 'review');

describe('a failed agent run fails its node and the automation run, naming the node', () => {
  test('agent run failed: node failed with the agent run named, run failed naming the node', () => {
    const simulator = new EngineSimulator(single(), { agentOutcomes: { review: 'failed' } });
    simulator.run();
    expect(simulator.records.nodeRuns.review).toMatchObject({
      status: 'failed',
      error: 'agent run agent-run-1 failed',
      output: { runId: 'agent-run-1', status: 'failed', lastMessage: 'review done', branch: 'automation/review' },
    });
    expect(simulator.records.run).toMatchObject({ status: 'failed', error: 'node "review" failed: agent run agent-run-1 failed' });
    expect(simulator.statusOf('end')).toBeUndefined();
  });

  test('agent run cancelled outside the automation: the node and the run fail the same way', () => {
    const simulator = new EngineSimulator(single(), { agentOutcomes: { review: 'cancelled' } });
    simulator.run();
    expect(simulator.records.run).toMatchObject({ status: 'failed', error: 'node "review" failed: agent run agent-run-1 was cancelled' });
  });

  test('the runs service refusing the agent run fails the node with its message', () => {
    const simulator = new EngineSimulator(single(), { agentOutcomes: { review: 'refused' } });
    simulator.run();
    expect(simulator.records.nodeRuns.review).toMatchObject({ status: 'failed', error: 'the runs service refused the agent run: refused by the simulator' });
    expect(simulator.records.run).toMatchObject({
      status: 'failed',
      error: 'node "review" failed: the runs service refused the agent run: refused by the simulator',
    });
  });

  test('a failed branch under join all fails the run and cancels the other branch', () => {
    const graph = flow(
      [
        ['start', 'start'],
        ['fork', 'parallel'],
        ['left', 'agent', { agentId: 'agent-1' }],
        ['right', 'agent', { agentId: 'agent-2' }],
        ['wait', 'delay', { seconds: 30 }],
        ['merge', 'join', { mode: 'all' }],
        ['end', 'end'],
      ],
      [
        ['start', 'fork'],
        ['fork', 'left'],
        ['fork', 'right'],
        ['fork', 'wait'],
        ['left', 'merge'],
        ['right', 'merge'],
        ['wait', 'merge'],
        ['merge', 'end'],
      ],
    );
    const simulator = new EngineSimulator(graph, { agentOutcomes: { left: 'failed', right: 'never' } });
    simulator.run();
    expect(simulator.records.run).toMatchObject({ status: 'failed', error: 'node "left" failed: agent run agent-run-1 failed' });
    expect([simulator.statusOf('right'), simulator.statusOf('wait')]).toEqual(['cancelled', 'cancelled']);
    expect(simulator.statusOf('merge')).toBeUndefined();
    expect(simulator.cancelled.map((effect) => effect.agentRunId)).toEqual(['agent-run-2']);
    expect(simulator.timers.size).toBe(0);
  });
});

describe('an expression that fails to evaluate fails its node with the expression’s message', () => {
  test('a condition reading a missing key fails the node and the run, naming both', () => {
    const graph = flow(
      [
        ['start', 'start'],
        ['check', 'condition', { expression: 'input.severity == "high"' }],
        ['a', 'agent', { agentId: 'agent-1' }],
        ['end', 'end'],
      ],
      [
        ['start', 'check'],
        ['check', 'a', 'true'],
        ['check', 'end', 'false'],
        ['a', 'end'],
      ],
    );
    const simulator = new EngineSimulator(graph, { input: {} });
    simulator.run();
    const nodeRun = simulator.records.nodeRuns.check;
    expect(nodeRun?.status).toBe('failed');
    expect(nodeRun?.error).toMatch(/^expression "input\.severity == \\"high\\"": /);
    expect(simulator.records.run.error).toBe(`node "check" failed: ${nodeRun?.error}`);
    expect(simulator.started).toHaveLength(0);
  });

  test('a condition giving a non-boolean fails its node', () => {
    const graph = flow(
      [
        ['start', 'start'],
        ['check', 'condition', { expression: 'input.count' }],
        ['end', 'end'],
      ],
      [
        ['start', 'check'],
        ['check', 'end', 'true'],
        ['check', 'end', 'false'],
      ],
    );
    const simulator = new EngineSimulator(graph, { input: { count: 3 } });
    simulator.run();
    expect(simulator.records.nodeRuns.check?.error).toBe('expression "input.count": must give a boolean, gave 3');
    expect(simulator.records.run.status).toBe('failed');
  });

  test('a prompt interpolation that fails fails the agent node before any agent run starts', () => {
    const simulator = new EngineSimulator(single('fix {{ vars.missing }}'));
    simulator.run();
    expect(simulator.records.nodeRuns.review).toMatchObject({ status: 'failed' });
    expect(simulator.records.nodeRuns.review?.error).toMatch(/^expression "vars\.missing": /);
    expect(simulator.started).toHaveLength(0);
  });

  test("an await_event's match that fails on a received event fails the node and releases its wait", () => {
    const graph = flow(
      [
        ['start', 'start'],
        ['approval', 'await_event', { event: 'approved', match: 'event.data.ok', timeoutSeconds: 60 }],
        ['end', 'end'],
      ],
      [
        ['start', 'approval'],
        ['approval', 'end', 'received'],
        ['approval', 'end', 'timeout'],
      ],
    );
    const simulator = new EngineSimulator(graph);
    simulator.trigger();
    simulator.send('approved', { other: true });
    expect(simulator.records.nodeRuns.approval?.error).toMatch(/^expression "event\.data\.ok": /);
    expect(simulator.records.run.status).toBe('failed');
    expect(simulator.timers.size).toBe(0);
    expect(simulator.waits.size).toBe(0);
  });
});

describe('a graph publish would refuse is not executable', () => {
  test('no start, two ends, or a parallel without a join: prepareGraph throws NotExecutableError naming why', () => {
    const noStart = flow([['end', 'end']], []);
    expect(() => prepareGraph(noStart)).toThrow(new NotExecutableError('needs exactly one start node, has 0'));
    const twoEnds = flow(
      [
        ['start', 'start'],
        ['e1', 'end'],
        ['e2', 'end'],
      ],
      [['start', 'e1']],
    );
    expect(() => prepareGraph(twoEnds)).toThrow('graph is not executable: needs exactly one end node, has 2');
    const unjoined = flow(
      [
        ['start', 'start'],
        ['fork', 'parallel'],
        ['a', 'set_variable', { name: 'a', value: '1' }],
        ['b', 'set_variable', { name: 'b', value: '2' }],
        ['end', 'end'],
      ],
      [
        ['start', 'fork'],
        ['fork', 'a'],
        ['fork', 'b'],
        ['a', 'end'],
        ['b', 'end'],
      ],
    );
    expect(() => prepareGraph(unjoined)).toThrow('graph is not executable: parallel fork has no join');
  });
});
