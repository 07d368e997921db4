import type { FlowGraph, NodeType } from './flowGraph.js';
import { cycleEdges, immediatePostDominator, indexGraph, postDominators, reachable, topologicalOrder } from './graphAnalysis.js';

function graph(nodeIds: string[], edges: string[]): FlowGraph {
  return {
    nodes: nodeIds.map((id) => ({ id, type: 'agent' as NodeType, position: { x: 0, y: 0 }, data: {} })),
    edges: edges.map((spec) => {
      const [source = '', target = ''] = spec.split('>');
      return { id: spec, source, target };
    }),
  };
}

describe('only edges between existing nodes take part in the analysis', () => {
  it('a dangling edge is left out of the index', () => {
    const indexed = indexGraph(graph(['a', 'b'], ['a>b', 'a>ghost']));
    expect(indexed.edges.map((edge) => edge.id)).toEqual(['a>b']);
    expect(indexed.outgoing.get('a')?.map((edge) => edge.target)).toEqual(['b']);
  });
});

describe('reachability follows edges forwards or backwards', () => {
  it('forwards from a root and backwards from a sink', () => {
    const indexed = indexGraph(graph(['a', 'b', 'c', 'd'], ['a>b', 'b>c', 'd>c']));
    expect([...reachable(indexed, ['a'], 'out')].sort()).toEqual(['a', 'b', 'c']);
    expect([...reachable(indexed, ['c'], 'in')].sort()).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('each edge that closes a cycle is found with its cycle', () => {
  it('a self-loop and a longer cycle', () => {
    const found = cycleEdges(indexGraph(graph(['a', 'b', 'c'], ['a>a', 'a>b', 'b>c', 'c>a'])));
    expect(found.map(({ edge, path }) => [edge.id, path.join(' ')])).toEqual([
      ['a>a', 'a a'],
      ['c>a', 'a b c a'],
    ]);
  });

  it('a diamond is not a cycle', () => {
    expect(cycleEdges(indexGraph(graph(['a', 'b', 'c', 'd'], ['a>b', 'a>c', 'b>d', 'c>d'])))).toEqual([]);
  });
});

describe('a topological order puts every node after its predecessors', () => {
  it('diamond', () => {
    const order = topologicalOrder(indexGraph(graph(['d', 'c', 'b', 'a'], ['a>b', 'a>c', 'b>d', 'c>d'])));
    expect(order[0]).toBe('a');
    expect(order[3]).toBe('d');
  });
});

describe('the immediate post-dominator is the first node every path to the end passes through', () => {
  it('a diamond meets at its bottom; nested diamonds meet at their own bottoms', () => {
    const indexed = indexGraph(graph(['p', 'q', 'a', 'b', 'k', 'x', 'j', 'e'], ['p>q', 'p>x', 'q>a', 'q>b', 'a>k', 'b>k', 'k>j', 'x>j', 'j>e']));
    const dominators = postDominators(indexed, 'e');
    expect(immediatePostDominator(dominators, 'p')).toBe('j');
    expect(immediatePostDominator(dominators, 'q')).toBe('k');
    expect(immediatePostDominator(dominators, 'e')).toBeUndefined();
  });

  it('a node with a path that never reaches the end has none', () => {
    const indexed = indexGraph(graph(['p', 'a', 'dead', 'e'], ['p>a', 'p>dead', 'a>e']));
    expect(immediatePostDominator(postDominators(indexed, 'e'), 'p')).toBeUndefined();
  });
});
