import { EngineSimulator, flow, type SimulatorOptions } from '../../testing/engineSimulator.js';
import type { FlowGraph } from '../flowGraph.js';
import { applyHappening, newRunRecords, prepareGraph, type Happening, type RunProgram } from './index.js';

const AT = '2026-01-01T00:00:00.000Z';

const agentThenEnd: FlowGraph = flow(
  [
    ['start', 'start'],
    ['a', 'agent', { agentId: 'agent-1' }],
    ['b', 'agent', { agentId: 'agent-2' }],
    ['end', 'end'],
  ],
  [
    ['start', 'a'],
    ['a', 'b'],
    ['b', 'end'],
  ],
);

const everythingWith = (mode: 'all' | 'any'): FlowGraph =>
  flow(
    [
      ['start', 'start'],
      ['fork', 'parallel'],
      ['left', 'agent', { agentId: 'agent-1' }],
      ['pause', 'delay', { seconds: 5 }],
      ['right', 'agent', { agentId: 'agent-2', prompt: '{{ vars.n }}' }],
      ['merge', 'join', { mode }],
      ['n', 'set_variable', { name: 'n', value: '1' }],
      ['check', 'condition', { expression: 'vars.n == 1' }],
      ['approval', 'await_event', { event: 'go', timeoutSeconds: 60 }],
      ['last', 'agent', { agentId: 'agent-3' }],
      ['end', 'end'],
    ],
    [
      ['start', 'n'],
      ['n', 'fork'],
      ['fork', 'left'],
      ['fork', 'pause'],
      ['pause', 'right'],
      ['left', 'merge'],
      ['right', 'merge'],
      ['merge', 'check'],
      ['check', 'approval', 'true'],
      ['check', 'end', 'false'],
      ['approval', 'last', 'received'],
      ['approval', 'end', 'timeout'],
      ['last', 'end'],
    ],
  );
const everything = everythingWith('all');

function simulate(graph: FlowGraph, options: SimulatorOptions, sendEvent: boolean): EngineSimulator {
  const simulator = new EngineSimulator(graph, options);
  simulator.trigger();
  if (sendEvent) simulator.send('go');
  simulator.run();
  return simulator;
}

describe('the same happening applied twice changes nothing the second time', () => {
  test.each([
    ['every happening of a run through parallel, join, delay, condition and await_event', everything, {}, true, 'success'],
    ['the same run timing out', everything, {}, false, 'success'],
    ['a run whose join any cancels a branch', everythingWith('any'), { agentOutcomes: { right: 'never' } }, true, 'success'],
    ['a failing run', agentThenEnd, { agentOutcomes: { b: 'failed' } }, false, 'failed'],
  ] as const)('%s: replaying each happening gives no change and no effect, and the run ends the same', (_name, graph, options, sendEvent, status) => {
    const once = simulate(graph, options, sendEvent);
    expect(once.records.run.status).toBe(status);
    const agentNodesExecuted = Object.values(once.records.nodeRuns).filter((nodeRun) => nodeRun.agentRunId !== undefined);
    expect(once.started).toHaveLength(agentNodesExecuted.length);
    const twice = simulate(graph, { ...options, replay: true }, sendEvent);
    expect(twice.records).toEqual(once.records);
    expect(twice.started).toEqual(once.started);
    expect(twice.effects).toEqual(once.effects);
  });

  test('a finished agent run delivered twice starts the next agent once', () => {
    const simulator = new EngineSimulator(agentThenEnd, { agentOutcomes: { b: 'never' } });
    simulator.trigger();
    const finished: Happening = { type: 'agentRunFinished', agentRunId: 'agent-run-1', status: 'success', lastMessage: 'ok', branch: 'x', at: simulator.at };
    expect(simulator.apply(finished).changed).toBe(true);
    const again = simulator.apply(finished);
    expect(again).toMatchObject({ changed: false, effects: [] });
    expect(simulator.started.map((effect) => effect.nodeId)).toEqual(['a', 'b']);
  });

  test('a timer firing twice, or for another attempt or kind, changes nothing', () => {
    const graph = flow(
      [
        ['start', 'start'],
        ['pause', 'delay', { seconds: 1 }],
        ['a', 'agent', { agentId: 'agent-1' }],
        ['end', 'end'],
      ],
      [
        ['start', 'pause'],
        ['pause', 'a'],
        ['a', 'end'],
      ],
    );
    const simulator = new EngineSimulator(graph, { agentOutcomes: { a: 'never' } });
    simulator.trigger();
    expect(simulator.apply({ type: 'timerFired', nodeId: 'pause', attempt: 2, kind: 'delay', at: AT }).changed).toBe(false);
    expect(simulator.apply({ type: 'timerFired', nodeId: 'pause', attempt: 1, kind: 'awaitTimeout', at: AT }).changed).toBe(false);
    expect(simulator.apply({ type: 'timerFired', nodeId: 'pause', attempt: 1, kind: 'delay', at: AT }).changed).toBe(true);
    expect(simulator.apply({ type: 'timerFired', nodeId: 'pause', attempt: 1, kind: 'delay', at: AT }).changed).toBe(false);
    expect(simulator.started).toHaveLength(1);
  });

  test('an event delivered twice (same id) is received once', () => {
    const simulator = new EngineSimulator(everything);
    simulator.trigger();
    const event: Happening = { type: 'eventReceived', event: { id: 'e1', name: 'later', data: null, receivedAt: AT }, at: AT };
    expect(simulator.apply(event).changed).toBe(true);
    expect(simulator.apply(event).changed).toBe(false);
    expect(simulator.records.inbox).toHaveLength(1);
  });

  test('a run triggered twice starts once', () => {
    const simulator = new EngineSimulator(agentThenEnd);
    simulator.trigger();
    expect(simulator.trigger()).toMatchObject({ changed: false, effects: [] });
    expect(simulator.started).toHaveLength(1);
  });

  test('each change raises the revision by one (the store compares and sets on it); no change leaves it', () => {
    const program: RunProgram = { graph: prepareGraph(agentThenEnd), catalog: { agents: {}, models: {} } };
    const records = newRunRecords({ id: 'r', repoId: 'repo', input: {} });
    expect(records.run.revision).toBe(0);
    const triggered = applyHappening(program, records, { type: 'triggered', at: AT });
    expect(triggered.records.run.revision).toBe(1);
    const replayed = applyHappening(program, triggered.records, { type: 'triggered', at: AT });
    expect(replayed.records).toBe(triggered.records);
    expect(replayed.records.run.revision).toBe(1);
  });

  test('the records given are never changed (the core is pure)', () => {
    const program: RunProgram = { graph: prepareGraph(agentThenEnd), catalog: { agents: {}, models: {} } };
    const records = newRunRecords({ id: 'r', repoId: 'repo', input: { a: [1] } });
    const before = JSON.stringify(records);
    const transition = applyHappening(program, records, { type: 'triggered', at: AT });
    expect(JSON.stringify(records)).toBe(before);
    expect(transition.records).not.toBe(records);
  });
});

describe('cancel: the run ends cancelled, its agent runs cancelled, its timers and waits cleared', () => {
  test('cancelling during an agent node cancels its agent run; its late finish changes nothing', () => {
    const simulator = new EngineSimulator(agentThenEnd, { agentOutcomes: { a: 'never' } });
    simulator.trigger();
    const { effects } = simulator.cancel();
    expect(effects).toEqual([{ type: 'cancelAgentRun', nodeId: 'a', idempotencyKey: 'arun-1:a:1', agentRunId: 'agent-run-1' }]);
    expect(simulator.records.run).toMatchObject({ status: 'cancelled', endedAt: simulator.at });
    expect(simulator.statusOf('a')).toBe('cancelled');
    const late = simulator.apply({ type: 'agentRunFinished', agentRunId: 'agent-run-1', status: 'cancelled', lastMessage: null, branch: null, at: AT });
    expect(late.changed).toBe(false);
    expect(simulator.cancel().changed).toBe(false);
  });

  test('cancelling while a delay and an await_event wait clears their timers and the wait', () => {
    const graph = flow(
      [
        ['start', 'start'],
        ['fork', 'parallel'],
        ['pause', 'delay', { seconds: 30 }],
        ['approval', 'await_event', { event: 'go', timeoutSeconds: 60 }],
        ['merge', 'join'],
        ['a', 'agent', { agentId: 'agent-1' }],
        ['end', 'end'],
      ],
      [
        ['start', 'fork'],
        ['fork', 'pause'],
        ['fork', 'approval'],
        ['pause', 'merge'],
        ['approval', 'merge', 'received'],
        ['approval', 'merge', 'timeout'],
        ['merge', 'a'],
        ['a', 'end'],
      ],
    );
    const simulator = new EngineSimulator(graph);
    simulator.trigger();
    expect(simulator.records.run.status).toBe('waiting');
    expect([simulator.timers.size, simulator.waits.size]).toEqual([2, 1]);
    simulator.cancel();
    expect([simulator.timers.size, simulator.waits.size]).toEqual([0, 0]);
    expect([simulator.statusOf('pause'), simulator.statusOf('approval')]).toEqual(['cancelled', 'cancelled']);
    expect(simulator.run().run.status).toBe('cancelled');
    expect(simulator.started).toHaveLength(0);
  });

  test('an agent run cancelled before its start was confirmed is cancelled by key, then by id once known', () => {
    const program: RunProgram = { graph: prepareGraph(agentThenEnd), catalog: { agents: {}, models: {} } };
    const triggered = applyHappening(program, newRunRecords({ id: 'r', repoId: 'repo', input: {} }), { type: 'triggered', at: AT });
    const cancelled = applyHappening(program, triggered.records, { type: 'cancelRequested', at: AT });
    expect(cancelled.effects).toEqual([{ type: 'cancelAgentRun', nodeId: 'a', idempotencyKey: 'r:a:1' }]);
    const started = applyHappening(program, cancelled.records, { type: 'agentRunStarted', nodeId: 'a', attempt: 1, agentRunId: 'late', at: AT });
    expect(started.effects).toEqual([{ type: 'cancelAgentRun', nodeId: 'a', idempotencyKey: 'r:a:1', agentRunId: 'late' }]);
    expect(started.records.run.status).toBe('cancelled');
  });

  test('a pending run cancelled never starts', () => {
    const simulator = new EngineSimulator(agentThenEnd);
    simulator.cancel();
    expect(simulator.trigger().changed).toBe(false);
    expect(simulator.records.run.status).toBe('cancelled');
    expect(simulator.started).toHaveLength(0);
  });
});
