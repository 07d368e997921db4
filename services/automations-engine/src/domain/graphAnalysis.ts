import type { FlowEdge, FlowGraph, FlowNode } from './flowGraph.js';

/** A graph indexed for the publish checks: only edges between existing nodes take part. */
export interface IndexedGraph {
  nodes: ReadonlyMap<string, FlowNode>;
  /** Edges whose source and target both exist. */
  edges: readonly FlowEdge[];
  outgoing: ReadonlyMap<string, readonly FlowEdge[]>;
  incoming: ReadonlyMap<string, readonly FlowEdge[]>;
}

export function indexGraph(graph: FlowGraph): IndexedGraph {
  const nodes = new Map(graph.nodes.map((node) => [node.id, node]));
  const edges = graph.edges.filter((edge) => nodes.has(edge.source) && nodes.has(edge.target));
  const outgoing = new Map<string, FlowEdge[]>(graph.nodes.map((node) => [node.id, []]));
  const incoming = new Map<string, FlowEdge[]>(graph.nodes.map((node) => [node.id, []]));
  for (const edge of edges) {
    outgoing.get(edge.source)?.push(edge);
    incoming.get(edge.target)?.push(edge);
  }
  return { nodes, edges, outgoing, incoming };
}

/** The ids reachable from `roots` following edges forwards (`'out'`) or backwards (`'in'`). */
export function reachable(graph: IndexedGraph, roots: readonly string[], direction: 'out' | 'in'): Set<string> {
  const seen = new Set(roots);
  const pending = [...roots];
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    const edges = (direction === 'out' ? graph.outgoing : graph.incoming).get(id) ?? [];
    for (const edge of edges) {
      const next = direction === 'out' ? edge.target : edge.source;
      if (!seen.has(next)) {
        seen.add(next);
        pending.push(next);
      }
    }
  }
  return seen;
}

export interface CycleEdge {
  edge: FlowEdge;
  /** The node ids around the cycle, starting and ending at the edge's target. */
  path: string[];
}

/** One entry per edge that closes a cycle (a back edge of a depth-first search), in node order. */
export function cycleEdges(graph: IndexedGraph): CycleEdge[] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const found: CycleEdge[] = [];
  const visit = (id: string): void => {
    state.set(id, 'open');
    stack.push(id);
    for (const edge of graph.outgoing.get(id) ?? []) {
      const seen = state.get(edge.target);
      if (seen === 'open') found.push({ edge, path: [...stack.slice(stack.indexOf(edge.target)), edge.target] });
      else if (seen === undefined) visit(edge.target);
    }
    stack.pop();
    state.set(id, 'done');
  };
  for (const id of graph.nodes.keys()) if (!state.has(id)) visit(id);
  return found;
}

/** Node ids in topological order (Kahn); only meaningful for an acyclic graph. */
export function topologicalOrder(graph: IndexedGraph): string[] {
  const remaining = new Map([...graph.nodes.keys()].map((id) => [id, graph.incoming.get(id)?.length ?? 0]));
  const ready = [...remaining].filter(([, count]) => count === 0).map(([id]) => id);
  const order: string[] = [];
  for (let id = ready.shift(); id !== undefined; id = ready.shift()) {
    order.push(id);
    for (const edge of graph.outgoing.get(id) ?? []) {
      const count = (remaining.get(edge.target) ?? 0) - 1;
      remaining.set(edge.target, count);
      if (count === 0) ready.push(edge.target);
    }
  }
  return order;
}

/**
 * Post-dominators of an acyclic graph towards `endId`: for each node that reaches the end, the set
 * of nodes every path from it to the end passes through (itself included).
 */
export function postDominators(graph: IndexedGraph, endId: string): Map<string, Set<string>> {
  const result = new Map<string, Set<string>>();
  for (const id of topologicalOrder(graph).reverse()) {
    if (id === endId) {
      result.set(id, new Set([id]));
      continue;
    }
    const successors = (graph.outgoing.get(id) ?? []).map((edge) => result.get(edge.target));
    if (successors.length === 0 || successors.some((set) => set === undefined)) continue;
    const [first, ...rest] = successors as Set<string>[];
    const common = new Set([...(first ?? [])].filter((candidate) => rest.every((set) => set.has(candidate))));
    common.add(id);
    result.set(id, common);
  }
  return result;
}

/** The nearest node, other than `id`, that every path from `id` to the end passes through. */
export function immediatePostDominator(dominators: ReadonlyMap<string, ReadonlySet<string>>, id: string): string | undefined {
  const own = dominators.get(id);
  if (!own) return undefined;
  return [...own].find((candidate) => candidate !== id && dominators.get(candidate)?.size === own.size - 1);
}
