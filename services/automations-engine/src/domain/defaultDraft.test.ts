import { defaultDraft } from './defaultDraft.js';
import { parseFlowGraph } from './flowGraph.js';
import { publishProblems } from './publishChecks.js';

describe('a new automation without graph gets start → agent → end with the agent left to choose', () => {
  it('is a valid draft, laid out left to right', () => {
    const draft = defaultDraft();
    expect(parseFlowGraph(draft)).toEqual({ ok: true, graph: draft });
    expect(draft.nodes.map((node) => [node.type, node.position.x])).toEqual([
      ['start', 0],
      ['agent', 250],
      ['end', 500],
    ]);
  });

  it('publishes once its agent is bound, and only then', () => {
    const catalog = { agentIds: new Set(['agent-1']), modelIds: new Set<string>() };
    expect(publishProblems(defaultDraft(), catalog).map((problem) => problem.code)).toEqual(['UNBOUND_AGENT']);
    const bound = defaultDraft();
    const agent = bound.nodes[1];
    if (agent) agent.data = { ...agent.data, agentId: 'agent-1' };
    expect(publishProblems(bound, catalog)).toEqual([]);
  });

  it('each call gives a fresh copy', () => {
    const first = defaultDraft();
    first.nodes.pop();
    expect(defaultDraft().nodes).toHaveLength(3);
  });
});
