import { GRAPH_LIMITS, parseFlowGraph, type FlowGraph } from './flowGraph.js';

function node(id: string, type = 'start'): Record<string, unknown> {
  return { id, type, position: { x: 0, y: 0 }, data: {} };
}

function problemsOf(value: unknown): string[] {
  const parsed = parseFlowGraph(value);
  return parsed.ok ? [] : parsed.problems;
}

describe('a graph is an object whose nodes and edges are arrays', () => {
  it.each([
    ['null', null],
    ['a string', 'nodes'],
    ['an object', {}],
  ])('nodes given as %s is refused naming graph.nodes', (_label, nodes) => {
    expect(problemsOf({ nodes, edges: [] })).toEqual(['graph.nodes must be an array']);
  });

  it('edges given as null is refused naming graph.edges', () => {
    expect(problemsOf({ nodes: [], edges: null })).toEqual(['graph.edges must be an array']);
  });

  it('a graph that is not an object, or lacks nodes or edges, is refused', () => {
    expect(problemsOf('graph')).toEqual(['graph must be an object']);
    expect(problemsOf({ edges: [] })).toEqual(['graph.nodes is required']);
    expect(problemsOf({ nodes: [] })).toEqual(['graph.edges is required']);
  });

  it('an empty graph is a valid draft', () => {
    expect(parseFlowGraph({ nodes: [], edges: [] })).toEqual({ ok: true, graph: { nodes: [], edges: [] } });
  });
});

describe('a node has a non-empty id, one of the nine types, a finite position and a data object', () => {
  it('a node without position is refused naming its index', () => {
    const { position: _position, ...withoutPosition } = node('a');
    expect(problemsOf({ nodes: [node('s'), node('b'), withoutPosition], edges: [] })).toEqual(['graph.nodes[2].position is required']);
  });

  it('an unknown node type is refused listing the nine types', () => {
    expect(problemsOf({ nodes: [node('a', 'loop')], edges: [] })).toEqual([
      'graph.nodes[0].type must be one of start, agent, condition, parallel, join, delay, await_event, set_variable, end',
    ]);
  });

  it('an empty id, a non-finite coordinate and a data that is not an object are each named', () => {
    const bad = { id: '', type: 'end', position: { x: Infinity, y: '1' }, data: [] };
    expect(problemsOf({ nodes: [bad], edges: [] })).toEqual([
      'graph.nodes[0].id must not be empty',
      'graph.nodes[0].position.x must be a finite number',
      'graph.nodes[0].position.y must be a finite number',
      'graph.nodes[0].data must be an object',
    ]);
  });

  it('a partial node lists every missing field', () => {
    expect(problemsOf({ nodes: [{ id: 'a' }], edges: [] })).toEqual([
      'graph.nodes[0].type is required',
      'graph.nodes[0].position is required',
      'graph.nodes[0].data is required',
    ]);
  });
});

describe('an edge has non-empty id, source and target, and string or null handles', () => {
  it('an edge without target is refused naming its index', () => {
    expect(problemsOf({ nodes: [], edges: [{ id: 'e', source: 'a' }] })).toEqual(['graph.edges[0].target is required']);
  });

  it('handles may be strings or null, nothing else', () => {
    const edges = [
      { id: 'e1', source: 'a', target: 'b', sourceHandle: 'true', targetHandle: null },
      { id: 'e2', source: 'a', target: 'b', sourceHandle: 1 },
    ];
    expect(problemsOf({ nodes: [], edges })).toEqual(['graph.edges[1].sourceHandle must be a string or null']);
  });

  it('a dangling edge is still a valid draft (only structure is checked)', () => {
    expect(problemsOf({ nodes: [], edges: [{ id: 'e', source: 'nowhere', target: 'else' }] })).toEqual([]);
  });
});

describe('a viewport has finite x and y and a zoom finite and greater than 0', () => {
  it.each([0, -1, '2'])('zoom %p is refused', (zoom) => {
    expect(problemsOf({ nodes: [], edges: [], viewport: { x: 0, y: 0, zoom } })).toEqual(['graph.viewport.zoom must be a finite number greater than 0']);
  });

  it('zoom Infinity (JSON 1e999) is refused', () => {
    const graph: unknown = JSON.parse('{"nodes":[],"edges":[],"viewport":{"x":0,"y":0,"zoom":1e999}}');
    expect(problemsOf(graph)).toEqual(['graph.viewport.zoom must be a finite number greater than 0']);
  });

  it('a finite viewport is kept', () => {
    const parsed = parseFlowGraph({ nodes: [], edges: [], viewport: { x: 1, y: -2, zoom: 0.5 } });
    expect(parsed).toEqual({ ok: true, graph: { nodes: [], edges: [], viewport: { x: 1, y: -2, zoom: 0.5 } } });
  });
});

describe('node ids and edge ids are unique within a graph', () => {
  it('a duplicate node id and a duplicate edge id are both refused', () => {
    const edges = [
      { id: 'e', source: 'a', target: 'a' },
      { id: 'e', source: 'a', target: 'a' },
    ];
    expect(problemsOf({ nodes: [node('a'), node('b'), node('a', 'end')], edges })).toEqual([
      'graph.nodes[2].id duplicates graph.nodes[0].id ("a")',
      'graph.edges[1].id duplicates graph.edges[0].id ("e")',
    ]);
  });
});

describe(`a graph holds at most ${GRAPH_LIMITS.maxNodes} nodes and ${GRAPH_LIMITS.maxEdges} edges`, () => {
  it('one node too many is refused', () => {
    const nodes = Array.from({ length: GRAPH_LIMITS.maxNodes + 1 }, (_, i) => node(`n${i}`));
    expect(problemsOf({ nodes, edges: [] })).toEqual([`graph.nodes must have at most ${GRAPH_LIMITS.maxNodes} items`]);
  });

  it('one edge too many is refused', () => {
    const edges = Array.from({ length: GRAPH_LIMITS.maxEdges + 1 }, (_, i) => ({ id: `e${i}`, source: 'a', target: 'b' }));
    expect(problemsOf({ nodes: [], edges })).toEqual([`graph.edges must have at most ${GRAPH_LIMITS.maxEdges} items`]);
  });

  it('exactly the limits are accepted', () => {
    const nodes = Array.from({ length: GRAPH_LIMITS.maxNodes }, (_, i) => node(`n${i}`));
    const edges = Array.from({ length: GRAPH_LIMITS.maxEdges }, (_, i) => ({ id: `e${i}`, source: 'a', target: 'b' }));
    expect(parseFlowGraph({ nodes, edges }).ok).toBe(true);
  });
});

describe('properties the contract does not define are dropped, data is kept whole', () => {
  it('React Flow extras on nodes, edges and the graph are removed; data keeps its own keys', () => {
    const input = {
      nodes: [{ ...node('a'), width: 150, selected: true, measured: { width: 1 }, position: { x: 1, y: 2, z: 3 }, data: { label: 'x' } }],
      edges: [{ id: 'e', source: 'a', target: 'b', animated: true }],
      viewport: { x: 0, y: 0, zoom: 1, extra: 1 },
      version: 3,
    };
    const expected: FlowGraph = {
      nodes: [{ id: 'a', type: 'start', position: { x: 1, y: 2 }, data: { label: 'x' } }],
      edges: [{ id: 'e', source: 'a', target: 'b' }],
      viewport: { x: 0, y: 0, zoom: 1 },
    };
    expect(parseFlowGraph(input)).toEqual({ ok: true, graph: expected });
    expect(input.nodes[0]).toHaveProperty('width', 150);
  });
});
