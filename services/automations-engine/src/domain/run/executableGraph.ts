import type { FlowEdge, FlowGraph, FlowNode } from '../flowGraph.js';
import { immediatePostDominator, indexGraph, postDominators, type IndexedGraph } from '../graphAnalysis.js';

/** What a join waits for: the branches of the parallel it closes. */
export interface JoinPlan {
  parallelId: string;
  branchCount: number;
  /** The nodes between the parallel and the join: what `any` cancels or skips once one branch arrived. */
  region: ReadonlySet<string>;
}

/**
 * A published graph indexed for execution; built once per version (`prepareGraph`) and shared by
 * every happening of every run pinned to that version.
 */
export interface ExecutableGraph {
  startId: string;
  nodes: ReadonlyMap<string, FlowNode>;
  outgoing: ReadonlyMap<string, readonly FlowEdge[]>;
  joins: ReadonlyMap<string, JoinPlan>;
  /** For each condition and handle: the nodes only reachable through that handle (skipped when the other is taken). */
  onlyThrough: ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>;
}

/** A graph the engine cannot run: publish refuses these, so only a bug or a hand-made graph meets it. */
export class NotExecutableError extends Error {
  constructor(detail: string) {
    super(`graph is not executable: ${detail}`);
    this.name = 'NotExecutableError';
  }
}

function reachableFrom(graph: IndexedGraph, root: string, stopAt?: string): Set<string> {
  const seen = new Set<string>();
  const pending = [root];
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    if (seen.has(id) || id === stopAt) continue;
    seen.add(id);
    for (const edge of graph.outgoing.get(id) ?? []) pending.push(edge.target);
  }
  return seen;
}

function joinPlans(graph: IndexedGraph, endId: string): Map<string, JoinPlan> {
  const dominators = postDominators(graph, endId);
  const plans = new Map<string, JoinPlan>();
  for (const node of graph.nodes.values()) {
    if (node.type !== 'parallel') continue;
    const joinId = immediatePostDominator(dominators, node.id);
    if (joinId === undefined || graph.nodes.get(joinId)?.type !== 'join') throw new NotExecutableError(`parallel ${node.id} has no join`);
    const branches = graph.outgoing.get(node.id) ?? [];
    const region = new Set(branches.flatMap((edge) => [...reachableFrom(graph, edge.target, joinId)]));
    plans.set(joinId, { parallelId: node.id, branchCount: branches.length, region });
  }
  return plans;
}

function conditionSides(graph: IndexedGraph): Map<string, Map<string, Set<string>>> {
  const sides = new Map<string, Map<string, Set<string>>>();
  for (const node of graph.nodes.values()) {
    if (node.type !== 'condition' && node.type !== 'await_event') continue;
    const byHandle = new Map<string, Set<string>>();
    const edges = graph.outgoing.get(node.id) ?? [];
    for (const edge of edges) {
      const others = edges.filter((other) => other !== edge).flatMap((other) => [...reachableFrom(graph, other.target)]);
      const only = reachableFrom(graph, edge.target);
      for (const id of others) only.delete(id);
      byHandle.set(edge.sourceHandle ?? '', only);
    }
    sides.set(node.id, byHandle);
  }
  return sides;
}

/** Indexes a published graph for the engine: its start, joins' branches and conditions' sides. */
export function prepareGraph(graph: FlowGraph): ExecutableGraph {
  const indexed = indexGraph(graph);
  const starts = graph.nodes.filter((node) => node.type === 'start');
  const ends = graph.nodes.filter((node) => node.type === 'end');
  const [start] = starts;
  const [end] = ends;
  if (starts.length !== 1 || start === undefined) throw new NotExecutableError(`needs exactly one start node, has ${starts.length}`);
  if (ends.length !== 1 || end === undefined) throw new NotExecutableError(`needs exactly one end node, has ${ends.length}`);
  return {
    startId: start.id,
    nodes: indexed.nodes,
    outgoing: indexed.outgoing,
    joins: joinPlans(indexed, end.id),
    onlyThrough: conditionSides(indexed),
  };
}
