import { defaultDraft } from './defaultDraft.js';
import { parseFlowGraph, type FlowEdge, type FlowGraph, type FlowNode, type NodeType } from './flowGraph.js';
import { publishProblems, publishRefusalMessage, type Problem } from './publishChecks.js';

const catalog = { agentIds: new Set(['agent-1']), modelIds: new Set(['gpt-5', 'claude-sonnet']) };

const DEFAULT_DATA: Partial<Record<NodeType, Record<string, unknown>>> = {
  agent: { agentId: 'agent-1', prompt: 'Do it' },
  condition: { expression: 'input.ok' },
  delay: { seconds: 60 },
  await_event: { event: 'deploy.done', timeoutSeconds: 600 },
  set_variable: { name: 'x', value: '1' },
};

function node(id: string, type: NodeType, data?: Record<string, unknown>): FlowNode {
  return { id, type, position: { x: 0, y: 0 }, data: data ?? DEFAULT_DATA[type] ?? {} };
}

/** `a>b` or `a>b:true` (sourceHandle true); the edge id is `a-b`, or `a-b:true` with a handle. */
function edge(spec: string): FlowEdge {
  const [path = '', handle] = spec.split(':');
  const [source = '', target = ''] = path.split('>');
  const id = handle ? `${source}-${target}:${handle}` : `${source}-${target}`;
  return handle ? { id, source, target, sourceHandle: handle } : { id, source, target };
}

function graph(nodes: FlowNode[], edges: string[]): FlowGraph {
  return { nodes, edges: edges.map(edge) };
}

/** start → agent → end, the smallest publishable graph. */
function minimal(): FlowGraph {
  return graph([node('s', 'start'), node('a', 'agent'), node('e', 'end')], ['s>a', 'a>e']);
}

function codes(problems: Problem[]): string[] {
  return problems.map((p) => `${p.code}@${p.nodeId ?? p.edgeId ?? '-'}`);
}

function check(g: FlowGraph): string[] {
  return codes(publishProblems(g, catalog));
}

describe('a publishable graph gives no problem', () => {
  it('start → agent → end', () => {
    expect(publishProblems(minimal(), catalog)).toEqual([]);
  });

  it('every node type together: condition, parallel/join, delay, await_event, set_variable', () => {
    const nodes = [
      node('s', 'start', { inputSchema: { type: 'object' } }),
      node('c', 'condition', { expression: 'input.urgent == true' }),
      node('v', 'set_variable', { name: 'note', value: '"slow path"' }),
      node('d', 'delay'),
      node('p', 'parallel'),
      node('a1', 'agent', { agentId: 'agent-1', prompt: 'Review {{ input.title }}', modelId: 'gpt-5' }),
      node('a2', 'agent', { agentId: 'agent-1', harness: 'claude-code', modelId: null }),
      node('j', 'join', { mode: 'any' }),
      node('w', 'await_event', { event: 'approved', match: 'event.data.by != ""', timeoutSeconds: 3600 }),
      node('a3', 'agent', { agentId: 'agent-1', prompt: 'Approved by {{ event.data.by }}; nodes {{ nodes.a1.status }}' }),
      node('e', 'end'),
    ];
    const edges = ['s>c', 'c>p:true', 'c>v:false', 'v>d', 'd>p', 'p>a1', 'p>a2', 'a1>j', 'a2>j', 'j>w', 'w>a3:received', 'w>e:timeout', 'a3>e'];
    expect(publishProblems(graph(nodes, edges), catalog)).toEqual([]);
  });
});

describe('exactly one start node and exactly one end node', () => {
  it('none of either is one problem each, without a node id', () => {
    expect(check(graph([node('a', 'agent')], []))).toEqual(['START_COUNT@-', 'END_COUNT@-', 'OUTGOING_COUNT@a']);
  });

  it('two starts and two ends name each of them', () => {
    const g = graph([node('s1', 'start'), node('s2', 'start'), node('a', 'agent'), node('e1', 'end'), node('e2', 'end')], ['s1>a', 's2>a', 'a>e1']);
    expect(check(g)).toEqual(['START_COUNT@s1', 'START_COUNT@s2', 'END_COUNT@e1', 'END_COUNT@e2', 'UNREACHABLE_NODE@e2']);
  });
});

describe('at least one agent node, each bound to an agent of the list', () => {
  it('a graph without an agent node', () => {
    expect(check(graph([node('s', 'start'), node('e', 'end')], ['s>e']))).toEqual(['NO_AGENT_NODE@-']);
  });

  it('an agent node with an empty or unknown agentId is unbound', () => {
    const g = minimal();
    g.nodes[1] = node('a', 'agent', { agentId: 'someone-elses' });
    const problems = publishProblems(g, catalog);
    expect(codes(problems)).toEqual(['UNBOUND_AGENT@a']);
    expect(problems[0]?.message).toBe('agent node is not bound to an agent: agent "someone-elses" is not one of your agents');
  });

  it('the default draft is refused only for its unbound agent', () => {
    const parsed = parseFlowGraph(defaultDraft());
    expect(parsed.ok).toBe(true);
    expect(check(defaultDraft())).toEqual(['UNBOUND_AGENT@agent']);
  });
});

describe('every explicit modelId is in the model list', () => {
  it('an unknown model is refused, a null model is the agent’s own', () => {
    const g = graph(
      [
        node('s', 'start'),
        node('a', 'agent', { agentId: 'agent-1', modelId: 'gpt-0' }),
        node('b', 'agent', { agentId: 'agent-1', modelId: null }),
        node('e', 'end'),
      ],
      ['s>a', 'a>b', 'b>e'],
    );
    expect(check(g)).toEqual(['UNKNOWN_MODEL@a']);
  });
});

describe('every edge is between existing nodes', () => {
  it('an edge to or from a missing node names the edge', () => {
    const g = minimal();
    g.edges.push(edge('a>ghost'), edge('nobody>e'));
    expect(check(g)).toEqual(['DANGLING_EDGE@a-ghost', 'DANGLING_EDGE@nobody-e']);
  });
});

describe('each source type has the outgoing edges and handles it requires', () => {
  it('condition: exactly one "true" and one "false" edge', () => {
    const nodes = [node('s', 'start'), node('c', 'condition'), node('a', 'agent'), node('e', 'end')];
    expect(check(graph(nodes, ['s>c', 'c>a:true', 'c>a:yes', 'a>e']))).toEqual(['HANDLE_COUNT@c', 'UNEXPECTED_HANDLE@c-a:yes']);
    expect(check(graph(nodes, ['s>c', 'c>a:true', 'c>e:true', 'c>e:false', 'a>e']))).toEqual(['HANDLE_COUNT@c']);
  });

  it('await_event: "received" and "timeout"', () => {
    const nodes = [node('s', 'start'), node('w', 'await_event'), node('a', 'agent'), node('e', 'end')];
    const problems = publishProblems(graph(nodes, ['s>w', 'w>a:received', 'a>e']), catalog);
    expect(codes(problems)).toEqual(['HANDLE_COUNT@w']);
    expect(problems[0]?.message).toBe('await_event node needs exactly one outgoing edge with sourceHandle "timeout", has 0');
  });

  it('parallel: two or more', () => {
    const nodes = [node('s', 'start'), node('p', 'parallel'), node('a', 'agent'), node('j', 'join'), node('e', 'end')];
    expect(check(graph(nodes, ['s>p', 'p>a', 'a>j', 'j>e']))).toContain('OUTGOING_COUNT@p');
  });

  it.each(['start', 'agent', 'join', 'delay', 'set_variable'] as const)('%s: exactly one outgoing edge', (type) => {
    const nodes = [node('s', 'start'), node('x', type), node('a', 'agent'), node('e', 'end')];
    const edges = type === 'start' ? ['x>a', 'x>e', 'a>e'] : ['s>x', 'x>a', 'x>e', 'a>e'];
    const g = graph(type === 'start' ? nodes.filter((n) => n.id !== 's') : nodes, edges);
    expect(check(g)).toContain('OUTGOING_COUNT@x');
  });

  it('end: none', () => {
    const g = minimal();
    g.edges.push(edge('e>a'));
    expect(check(g)).toEqual(['OUTGOING_COUNT@e', 'CYCLE@e-a']);
  });
});

describe('every node is reachable from start and reaches end', () => {
  it('an island node is unreachable and reaches no end', () => {
    const g = minimal();
    g.nodes.push(node('lost', 'delay'));
    expect(check(g)).toEqual(['OUTGOING_COUNT@lost', 'UNREACHABLE_NODE@lost', 'CANNOT_REACH_END@lost']);
  });
});

describe('no cycle', () => {
  it('the edge closing a cycle is named with the cycle', () => {
    const nodes = [node('s', 'start'), node('c', 'condition'), node('a', 'agent'), node('e', 'end')];
    const problems = publishProblems(graph(nodes, ['s>c', 'c>a:true', 'c>e:false', 'a>c']), catalog);
    expect(codes(problems)).toEqual(['CYCLE@a-c']);
    expect(problems[0]?.message).toBe('edge closes a cycle: c → a → c');
  });
});

describe('each parallel is matched by a join: its branches first meet at one join no path bypasses, and each join closes one parallel', () => {
  const base = (): FlowNode[] => [node('s', 'start'), node('p', 'parallel'), node('a', 'agent'), node('b', 'agent'), node('j', 'join'), node('e', 'end')];

  it('branches that meet at the end without a join', () => {
    const g = graph(
      base().filter((n) => n.id !== 'j'),
      ['s>p', 'p>a', 'p>b', 'a>e', 'b>e'],
    );
    const problems = publishProblems(g, catalog);
    expect(codes(problems)).toEqual(['PARALLEL_WITHOUT_JOIN@p']);
    expect(problems[0]?.message).toBe('the branches of parallel node first meet at end node "e", not at a join');
  });

  it('a branch that bypasses the join', () => {
    const nodes = [...base(), node('c', 'condition')];
    const g = graph(nodes, ['s>p', 'p>a', 'p>c', 'c>b:true', 'c>e:false', 'a>j', 'b>j', 'j>e']);
    expect(check(g)).toEqual(['PARALLEL_WITHOUT_JOIN@p', 'JOIN_WITHOUT_PARALLEL@j']);
  });

  it('a join after a condition closes no parallel', () => {
    const nodes = [node('s', 'start'), node('c', 'condition'), node('a', 'agent'), node('b', 'agent'), node('j', 'join'), node('e', 'end')];
    expect(check(graph(nodes, ['s>c', 'c>a:true', 'c>b:false', 'a>j', 'b>j', 'j>e']))).toEqual(['JOIN_WITHOUT_PARALLEL@j']);
  });

  it("two parallels closed by one join (the outer branch then enters the inner one's join)", () => {
    const nodes = [...base(), node('q', 'parallel'), node('x', 'agent')];
    const g = graph(nodes, ['s>p', 'p>q', 'p>x', 'q>a', 'q>b', 'a>j', 'b>j', 'x>j', 'j>e']);
    expect(check(g)).toEqual(['PARALLEL_REGION_ENTERED@x-j', 'JOIN_SHARED@j']);
  });

  it('nested parallels each with its own join are accepted', () => {
    const nodes = [...base(), node('q', 'parallel'), node('x', 'agent'), node('k', 'join')];
    const g = graph(nodes, ['s>p', 'p>q', 'p>x', 'q>a', 'q>b', 'a>k', 'b>k', 'k>j', 'x>j', 'j>e']);
    expect(check(g)).toEqual([]);
  });

  it('an edge from outside into a branch is refused', () => {
    const nodes = [node('s', 'start'), node('c', 'condition'), ...base().slice(1)];
    const g = graph(nodes, ['s>c', 'c>p:true', 'c>a:false', 'p>a', 'p>b', 'a>j', 'b>j', 'j>e']);
    expect(check(g)).toEqual(['PARALLEL_REGION_ENTERED@c-a:false']);
  });
});

describe("every node's data is valid for its type", () => {
  it('each data problem names its node and path', () => {
    const g = graph([node('s', 'start'), node('d', 'delay', { seconds: 0 }), node('a', 'agent'), node('e', 'end')], ['s>d', 'd>a', 'a>e']);
    const problems = publishProblems(g, catalog);
    expect(problems).toEqual([{ nodeId: 'd', code: 'INVALID_DATA', message: 'data.seconds must be at least 1' }]);
  });
});

describe('every CEL expression type-checks in the scope of its node; event only after an await_event received it', () => {
  function waitThen(type: NodeType, data: Record<string, unknown>, handle: 'received' | 'timeout'): FlowGraph {
    const other = handle === 'received' ? 'timeout' : 'received';
    const nodes = [node('s', 'start'), node('w', 'await_event'), node('x', type, data), node('a', 'agent'), node('e', 'end')];
    const edges = type === 'condition' ? ['x>a:true', 'x>e:false'] : ['x>a'];
    return graph(nodes, ['s>w', `w>x:${handle}`, `w>e:${other}`, ...edges, 'a>e']);
  }

  it('event is in scope after the "received" edge', () => {
    expect(check(waitThen('condition', { expression: 'event.data.ok == true' }, 'received'))).toEqual([]);
    expect(check(waitThen('set_variable', { name: 'who', value: 'event.data.by' }, 'received'))).toEqual([]);
  });

  it('event is not in scope after the "timeout" edge, nor before any await_event', () => {
    expect(check(waitThen('condition', { expression: 'event.data.ok == true' }, 'timeout'))).toEqual(['INVALID_EXPRESSION@x']);
    const g = minimal();
    g.nodes[1] = node('a', 'agent', { agentId: 'agent-1', prompt: 'Event {{ event.name }}' });
    expect(check(g)).toEqual(['INVALID_EXPRESSION@a']);
  });

  it("an await_event's match sees event", () => {
    const nodes = [
      node('s', 'start'),
      node('w', 'await_event', { event: 'x', match: 'event.data.id == input.id', timeoutSeconds: 5 }),
      node('a', 'agent'),
      node('e', 'end'),
    ];
    expect(check(graph(nodes, ['s>w', 'w>a:received', 'w>e:timeout', 'a>e']))).toEqual([]);
  });

  it('a non-boolean condition, a bad value, an unterminated prompt and matches() are each refused', () => {
    const nodes = [
      node('s', 'start'),
      node('c', 'condition', { expression: 'run.id' }),
      node('v', 'set_variable', { name: 'x', value: 'input.a +' }),
      node('a', 'agent', { agentId: 'agent-1', prompt: 'Hello {{ input.name' }),
      node('w', 'await_event', { event: 'x', match: 'event.name.matches("(a+)+")', timeoutSeconds: 5 }),
      node('e', 'end'),
    ];
    const g = graph(nodes, ['s>c', 'c>v:true', 'c>w:false', 'v>a', 'a>e', 'w>e:received', 'w>e:timeout']);
    expect(check(g)).toEqual(['INVALID_EXPRESSION@c', 'INVALID_EXPRESSION@v', 'INVALID_EXPRESSION@a', 'INVALID_EXPRESSION@w']);
  });
});

describe('publish lists every problem, not the first', () => {
  it('the refusal message lists each problem with its node or edge id and code', () => {
    const g = graph([node('a', 'agent', { agentId: '' })], ['a>ghost']);
    const problems = publishProblems(g, catalog);
    expect(codes(problems)).toEqual(['START_COUNT@-', 'END_COUNT@-', 'UNBOUND_AGENT@a', 'DANGLING_EDGE@a-ghost', 'OUTGOING_COUNT@a']);
    expect(publishRefusalMessage(problems)).toBe(
      'graph cannot be published (5 problems): the graph needs exactly one start node, has none [START_COUNT]; ' +
        'the graph needs exactly one end node, has none [END_COUNT]; ' +
        'node a: agent node is not bound to an agent: no agent chosen [UNBOUND_AGENT]; ' +
        'edge a-ghost: edge refers to node "ghost", which does not exist [DANGLING_EDGE]; ' +
        'node a: agent node needs exactly one outgoing edge, has 0 [OUTGOING_COUNT]',
    );
  });
});
