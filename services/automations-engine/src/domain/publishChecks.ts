import { checkExpression, type ExpressionScope } from './expressions.js';
import type { FlowEdge, FlowGraph, FlowNode, NodeType } from './flowGraph.js';
import { cycleEdges, immediatePostDominator, indexGraph, postDominators, reachable, topologicalOrder, type IndexedGraph } from './graphAnalysis.js';
import { nodeDataProblems, typedNodeData } from './nodeData.js';
import { promptTemplateProblems } from './promptTemplate.js';

/** One reason a graph cannot be published; `code` is stable (README, Domain), `message` is for people. */
export interface Problem {
  nodeId?: string;
  edgeId?: string;
  code: string;
  message: string;
}

/** What publish checks against: the ids of `GET /agents` and `GET /models` for the automation's owner. */
export interface PublishCatalog {
  agentIds: ReadonlySet<string>;
  modelIds: ReadonlySet<string>;
}

/** The sourceHandle values a branching node's outgoing edges must carry, one edge each. */
const REQUIRED_HANDLES: Partial<Record<NodeType, readonly string[]>> = {
  condition: ['true', 'false'],
  await_event: ['received', 'timeout'],
};

/** How many outgoing edges a node type takes, for types without named handles. */
const OUTGOING_COUNT: Partial<Record<NodeType, { min: number; max: number }>> = {
  start: { min: 1, max: 1 },
  agent: { min: 1, max: 1 },
  join: { min: 1, max: 1 },
  delay: { min: 1, max: 1 },
  set_variable: { min: 1, max: 1 },
  end: { min: 0, max: 0 },
  parallel: { min: 2, max: Infinity },
};

function nodesOfType(graph: FlowGraph, type: NodeType): FlowNode[] {
  return graph.nodes.filter((node) => node.type === type);
}

function countProblems(graph: FlowGraph, type: 'start' | 'end', code: string): Problem[] {
  const found = nodesOfType(graph, type);
  if (found.length === 0) return [{ code, message: `the graph needs exactly one ${type} node, has none` }];
  if (found.length === 1) return [];
  return found.map((node) => ({ nodeId: node.id, code, message: `the graph needs exactly one ${type} node, has ${found.length}` }));
}

function agentProblems(graph: FlowGraph, catalog: PublishCatalog): Problem[] {
  const agents = nodesOfType(graph, 'agent');
  if (agents.length === 0) return [{ code: 'NO_AGENT_NODE', message: 'the graph needs at least one agent node' }];
  return agents.flatMap((node): Problem[] => {
    const { agentId, modelId } = node.data as { agentId?: unknown; modelId?: unknown };
    const problems: Problem[] = [];
    if (typeof agentId !== 'string' || !catalog.agentIds.has(agentId)) {
      const which = typeof agentId === 'string' && agentId !== '' ? `agent ${JSON.stringify(agentId)} is not one of your agents` : 'no agent chosen';
      problems.push({ nodeId: node.id, code: 'UNBOUND_AGENT', message: `agent node is not bound to an agent: ${which}` });
    }
    if (typeof modelId === 'string' && !catalog.modelIds.has(modelId)) {
      problems.push({ nodeId: node.id, code: 'UNKNOWN_MODEL', message: `model ${JSON.stringify(modelId)} is not one of your models` });
    }
    return problems;
  });
}

function danglingEdgeProblems(graph: FlowGraph): Problem[] {
  const ids = new Set(graph.nodes.map((node) => node.id));
  return graph.edges.flatMap((edge) =>
    [edge.source, edge.target]
      .filter((end) => !ids.has(end))
      .map((missing) => ({ edgeId: edge.id, code: 'DANGLING_EDGE', message: `edge refers to node ${JSON.stringify(missing)}, which does not exist` })),
  );
}

function namedHandleProblems(node: FlowNode, edges: readonly FlowEdge[], handles: readonly string[]): Problem[] {
  const counted = handles.flatMap((handle): Problem[] => {
    const count = edges.filter((edge) => edge.sourceHandle === handle).length;
    if (count === 1) return [];
    const message = `${node.type} node needs exactly one outgoing edge with sourceHandle ${JSON.stringify(handle)}, has ${count}`;
    return [{ nodeId: node.id, code: 'HANDLE_COUNT', message }];
  });
  const unexpected = edges
    .filter((edge) => !handles.includes(edge.sourceHandle ?? ''))
    .map((edge) => ({
      edgeId: edge.id,
      code: 'UNEXPECTED_HANDLE',
      message: `edge from ${node.type} node ${JSON.stringify(node.id)} has sourceHandle ${JSON.stringify(edge.sourceHandle ?? null)}; expected one of ${handles.map((h) => JSON.stringify(h)).join(', ')}`,
    }));
  return [...counted, ...unexpected];
}

function outgoingProblems(indexed: IndexedGraph): Problem[] {
  return [...indexed.nodes.values()].flatMap((node): Problem[] => {
    const edges = indexed.outgoing.get(node.id) ?? [];
    const handles = REQUIRED_HANDLES[node.type];
    if (handles) return namedHandleProblems(node, edges, handles);
    const bounds = OUTGOING_COUNT[node.type];
    if (!bounds || (edges.length >= bounds.min && edges.length <= bounds.max)) return [];
    const wanted = bounds.max === 0 ? 'no outgoing edge' : bounds.max === Infinity ? `${bounds.min} or more outgoing edges` : 'exactly one outgoing edge';
    return [{ nodeId: node.id, code: 'OUTGOING_COUNT', message: `${node.type} node needs ${wanted}, has ${edges.length}` }];
  });
}

function reachabilityProblems(graph: FlowGraph, indexed: IndexedGraph): Problem[] {
  const starts = nodesOfType(graph, 'start').map((node) => node.id);
  const ends = nodesOfType(graph, 'end').map((node) => node.id);
  const fromStart = reachable(indexed, starts, 'out');
  const toEnd = reachable(indexed, ends, 'in');
  return graph.nodes.flatMap((node): Problem[] => [
    ...(starts.length > 0 && !fromStart.has(node.id)
      ? [{ nodeId: node.id, code: 'UNREACHABLE_NODE', message: 'node cannot be reached from the start node' }]
      : []),
    ...(ends.length > 0 && !toEnd.has(node.id) ? [{ nodeId: node.id, code: 'CANNOT_REACH_END', message: 'node has no path to the end node' }] : []),
  ]);
}

function cycleProblems(indexed: IndexedGraph): Problem[] {
  return cycleEdges(indexed).map(({ edge, path }) => ({ edgeId: edge.id, code: 'CYCLE', message: `edge closes a cycle: ${path.join(' → ')}` }));
}

/** The nodes strictly between a parallel and its join: reachable from the parallel without passing the join. */
function regionOf(indexed: IndexedGraph, parallelId: string, joinId: string): Set<string> {
  const region = new Set<string>();
  const pending = (indexed.outgoing.get(parallelId) ?? []).map((edge) => edge.target);
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    if (id === joinId || region.has(id)) continue;
    region.add(id);
    pending.push(...(indexed.outgoing.get(id) ?? []).map((edge) => edge.target));
  }
  return region;
}

function regionEntryProblems(indexed: IndexedGraph, parallel: FlowNode, joinId: string): Problem[] {
  const region = regionOf(indexed, parallel.id, joinId);
  return [...region, joinId].flatMap((id) =>
    (indexed.incoming.get(id) ?? [])
      .filter((edge) => edge.source !== parallel.id && !region.has(edge.source))
      .map((edge) => ({
        edgeId: edge.id,
        code: 'PARALLEL_REGION_ENTERED',
        message: `edge enters the branches of parallel node ${JSON.stringify(parallel.id)} from outside them`,
      })),
  );
}

/**
 * Each parallel P is closed by the join J that is its immediate post-dominator: the first node every
 * path from P to the end passes through must be a join, and only P's branches may lead into the
 * nodes between P and J (and into J). Each join closes exactly one parallel.
 */
function parallelJoinProblems(graph: FlowGraph, indexed: IndexedGraph, endId: string): Problem[] {
  const dominators = postDominators(indexed, endId);
  const closedBy = new Map<string, string[]>();
  const problems: Problem[] = [];
  for (const parallel of nodesOfType(graph, 'parallel')) {
    if (!dominators.has(parallel.id)) continue;
    const meet = immediatePostDominator(dominators, parallel.id);
    const meetNode = meet === undefined ? undefined : indexed.nodes.get(meet);
    if (!meetNode || meetNode.type !== 'join') {
      const where = meetNode ? `${meetNode.type} node ${JSON.stringify(meetNode.id)}` : 'no node';
      problems.push({ nodeId: parallel.id, code: 'PARALLEL_WITHOUT_JOIN', message: `the branches of parallel node first meet at ${where}, not at a join` });
      continue;
    }
    closedBy.set(meetNode.id, [...(closedBy.get(meetNode.id) ?? []), parallel.id]);
    problems.push(...regionEntryProblems(indexed, parallel, meetNode.id));
  }
  for (const join of nodesOfType(graph, 'join')) {
    const parallels = closedBy.get(join.id) ?? [];
    if (parallels.length === 0) problems.push({ nodeId: join.id, code: 'JOIN_WITHOUT_PARALLEL', message: 'join node closes no parallel node' });
    if (parallels.length > 1) {
      problems.push({ nodeId: join.id, code: 'JOIN_SHARED', message: `join node closes more than one parallel node: ${parallels.join(', ')}` });
    }
  }
  return problems;
}

function dataProblems(graph: FlowGraph): Problem[] {
  return graph.nodes.flatMap((node) => nodeDataProblems(node.type, node.data).map((message) => ({ nodeId: node.id, code: 'INVALID_DATA', message })));
}

/**
 * Where `event` is in scope: at a node every path to which from the start crosses the "received"
 * edge of an await_event (the latest such event). A timeout path has no event.
 */
function eventScopes(indexed: IndexedGraph): Map<string, boolean> {
  const scopes = new Map<string, boolean>();
  for (const id of topologicalOrder(indexed)) {
    const incoming = indexed.incoming.get(id) ?? [];
    const received = (edge: FlowEdge): boolean =>
      (indexed.nodes.get(edge.source)?.type === 'await_event' && edge.sourceHandle === 'received') || scopes.get(edge.source) === true;
    scopes.set(id, incoming.length > 0 && incoming.every(received));
  }
  return scopes;
}

function expressionsOf(node: FlowNode, scope: ExpressionScope): string[] {
  switch (node.type) {
    case 'condition':
      return problemMessages(typedNodeData('condition', node.data).expression, 'bool', scope);
    case 'set_variable':
      return problemMessages(typedNodeData('set_variable', node.data).value, 'any', scope);
    case 'await_event': {
      const { match } = typedNodeData('await_event', node.data);
      return match === undefined ? [] : problemMessages(match, 'bool', { event: true });
    }
    case 'agent': {
      const { prompt } = typedNodeData('agent', node.data);
      return prompt === undefined ? [] : promptTemplateProblems(prompt, scope);
    }
    default:
      return [];
  }
}

function problemMessages(expression: string, expect: 'bool' | 'any', scope: ExpressionScope): string[] {
  const checked = checkExpression(expression, { expect, scope });
  return checked.ok ? [] : [checked.message];
}

/** Expressions are checked on nodes whose data is valid (otherwise INVALID_DATA says why). */
function expressionProblems(graph: FlowGraph, indexed: IndexedGraph, acyclic: boolean, invalidData: ReadonlySet<string>): Problem[] {
  const scopes = acyclic ? eventScopes(indexed) : new Map<string, boolean>();
  return graph.nodes
    .filter((node) => !invalidData.has(node.id))
    .flatMap((node) =>
      expressionsOf(node, { event: scopes.get(node.id) === true }).map((message) => ({ nodeId: node.id, code: 'INVALID_EXPRESSION', message })),
    );
}

/**
 * Every reason `graph` cannot be published (empty: it can), not only the first. The graph has passed
 * `parseFlowGraph`. Analyses that need a sound graph are skipped when it is not: parallel/join
 * pairing needs no cycle and exactly one end; event scopes need no cycle.
 */
export function publishProblems(graph: FlowGraph, catalog: PublishCatalog): Problem[] {
  const indexed = indexGraph(graph);
  const cycles = cycleProblems(indexed);
  const ends = nodesOfType(graph, 'end');
  const [onlyEnd] = ends;
  const invalidData = dataProblems(graph);
  return [
    ...countProblems(graph, 'start', 'START_COUNT'),
    ...countProblems(graph, 'end', 'END_COUNT'),
    ...agentProblems(graph, catalog),
    ...danglingEdgeProblems(graph),
    ...outgoingProblems(indexed),
    ...reachabilityProblems(graph, indexed),
    ...cycles,
    ...(cycles.length === 0 && ends.length === 1 && onlyEnd ? parallelJoinProblems(graph, indexed, onlyEnd.id) : []),
    ...invalidData,
    ...expressionProblems(graph, indexed, cycles.length === 0, new Set(invalidData.map((problem) => problem.nodeId ?? ''))),
  ];
}

function subject(problem: Problem): string {
  if (problem.nodeId !== undefined) return `node ${problem.nodeId}: `;
  if (problem.edgeId !== undefined) return `edge ${problem.edgeId}: `;
  return '';
}

/** The 400 message of a refused publish: every problem, each with its node or edge id and code. */
export function publishRefusalMessage(problems: readonly Problem[]): string {
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  return `graph cannot be published (${count}): ${problems.map((p) => `${subject(p)}${p.message} [${p.code}]`).join('; ')}`;
}
