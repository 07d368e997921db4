import { flow } from '../../testing/engineSimulator.js';
import { applyHappening, newRunRecords, outstandingEffects, prepareGraph, type Effect, type RunProgram } from './index.js';

const AT = '2026-01-01T00:00:00.000Z';

const program: RunProgram = {
  graph: prepareGraph(
    flow(
      [
        ['start', 'start'],
        ['n', 'set_variable', { name: 'n', value: '1' }],
        ['fork', 'parallel'],
        ['a', 'agent', { agentId: 'agent-1', prompt: 'n is {{ vars.n }}' }],
        ['pause', 'delay', { seconds: 60 }],
        ['approval', 'await_event', { event: 'go', timeoutSeconds: 120 }],
        ['merge', 'join'],
        ['later', 'set_variable', { name: 'n', value: '2' }],
        ['end', 'end'],
      ],
      [
        ['start', 'n'],
        ['n', 'fork'],
        ['fork', 'a'],
        ['fork', 'pause'],
        ['fork', 'approval'],
        ['a', 'merge'],
        ['pause', 'merge'],
        ['approval', 'merge', 'received'],
        ['approval', 'merge', 'timeout'],
        ['merge', 'later'],
        ['later', 'end'],
      ],
    ),
  ),
  catalog: { agents: { 'agent-1': { modelId: 'sonnet' } }, models: { sonnet: { provider: 'anthropic' } } },
};

const byType = (effects: Effect[]): Effect[] => [...effects].sort((a, b) => `${a.type}${JSON.stringify(a)}`.localeCompare(`${b.type}${JSON.stringify(b)}`));

describe('outstanding effects: what the records say must be in place, for a sweeper after a crash', () => {
  test('after a transition whose effects were lost, the outstanding effects are exactly those effects', () => {
    const triggered = applyHappening(program, newRunRecords({ id: 'r', repoId: 'repo', input: {} }), { type: 'triggered', at: AT });
    expect(triggered.effects.map((effect) => effect.type)).toEqual(['startAgentRun', 'setTimer', 'waitForEvent', 'setTimer']);
    expect(byType(outstandingEffects(program, triggered.records))).toEqual(byType(triggered.effects));
  });

  test('a confirmed agent run is no longer outstanding; a fired timer neither', () => {
    const triggered = applyHappening(program, newRunRecords({ id: 'r', repoId: 'repo', input: {} }), { type: 'triggered', at: AT });
    const started = applyHappening(program, triggered.records, { type: 'agentRunStarted', nodeId: 'a', attempt: 1, agentRunId: 'ar', at: AT });
    const fired = applyHappening(program, started.records, { type: 'timerFired', nodeId: 'pause', attempt: 1, kind: 'delay', at: AT });
    expect(outstandingEffects(program, fired.records).map((effect) => [effect.type, 'nodeId' in effect ? effect.nodeId : undefined])).toEqual([
      ['waitForEvent', 'approval'],
      ['setTimer', 'approval'],
    ]);
  });

  test('an agent start is rebuilt from its input snapshot, not rendered again', () => {
    const triggered = applyHappening(program, newRunRecords({ id: 'r', repoId: 'repo', input: {} }), { type: 'triggered', at: AT });
    const [start] = outstandingEffects(program, triggered.records);
    expect(start).toEqual({
      type: 'startAgentRun',
      nodeId: 'a',
      attempt: 1,
      idempotencyKey: 'r:a:1',
      repoId: 'repo',
      agentId: 'agent-1',
      modelId: 'sonnet',
      harness: 'claude-code',
      prompt: 'n is 1',
      createBranch: true,
    });
  });

  test('a run cancelled before its agent start was confirmed keeps the cancel by key outstanding; a finished run has none', () => {
    const triggered = applyHappening(program, newRunRecords({ id: 'r', repoId: 'repo', input: {} }), { type: 'triggered', at: AT });
    const cancelled = applyHappening(program, triggered.records, { type: 'cancelRequested', at: AT });
    expect(outstandingEffects(program, cancelled.records)).toEqual([{ type: 'cancelAgentRun', nodeId: 'a', idempotencyKey: 'r:a:1' }]);
    const confirmed = applyHappening(program, cancelled.records, { type: 'agentRunStarted', nodeId: 'a', attempt: 1, agentRunId: 'ar', at: AT });
    expect(outstandingEffects(program, confirmed.records)).toEqual([]);
  });
});
