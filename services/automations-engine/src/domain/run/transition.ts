import type { ExpressionContext, JsonValue } from '../expressions.js';
import type { ModelProvider } from '../harness.js';
import { cancelAgentRunEffect, timerId, type Effect } from './effects.js';
import type { ExecutableGraph } from './executableGraph.js';
import { isActive, isTerminal, type AutomationRunStatus, type NodeRun, type RunRecords } from './records.js';

/** What agent nodes need from the catalog: each agent's model and each model's provider (chooses the harness). */
export interface AgentCatalog {
  agents: Record<string, { modelId: string | null }>;
  models: Record<string, ModelProvider>;
}

/** What a run executes: its pinned version's graph and the catalog its agent nodes read. */
export interface RunProgram {
  graph: ExecutableGraph;
  catalog: AgentCatalog;
}

/** A node reached from `from` (undefined for the start), waiting in the step's queue. */
export interface Arrival {
  nodeId: string;
  from?: string;
}

/** The working copy of one transition: records changed in place, effects appended in order. */
export interface Step {
  program: RunProgram;
  records: RunRecords;
  effects: Effect[];
  queue: Arrival[];
  at: string;
}

export function createStep(program: RunProgram, records: RunRecords, at: string): Step {
  // Records are JSON (the store keeps them in MongoDB), so a JSON copy is a whole copy; unlike
  // structuredClone it builds its arrays in the caller's realm, which CEL's type checks rely on.
  const copy = JSON.parse(JSON.stringify(records)) as RunRecords;
  return { program, records: copy, effects: [], queue: [], at };
}

export function runIsOver(step: Step): boolean {
  return isTerminal(step.records.run.status);
}

function nodeType(step: Step, nodeId: string): string | undefined {
  return step.program.graph.nodes.get(nodeId)?.type;
}

/** `event` where a node stands: the received event of the await_event its path crossed last. */
function eventOf(step: Step, nodeRun: NodeRun): ExpressionContext['event'] {
  const source = nodeRun.eventFrom === undefined ? undefined : step.records.nodeRuns[nodeRun.eventFrom];
  const output = source?.output;
  if (typeof output !== 'object' || output === null || Array.isArray(output)) return undefined;
  return output.event as ExpressionContext['event'];
}

/** What expressions at `nodeRun` read: input, vars, every node run so far, the run, and `event` where in scope. */
export function expressionContext(step: Step, nodeRun: NodeRun): ExpressionContext {
  const { run, nodeRuns } = step.records;
  const nodes: ExpressionContext['nodes'] = {};
  for (const [id, other] of Object.entries(nodeRuns)) nodes[id] = { status: other.status, output: other.output };
  const context: ExpressionContext = { input: run.input, vars: run.vars, nodes, run: { id: run.id, repoId: run.repoId } };
  const event = eventOf(step, nodeRun);
  return event === undefined ? context : { ...context, event };
}

/** The await_event a node reached from `from` takes its `event` from: `from` itself if it received one. */
export function eventFromOf(step: Step, from: string | undefined): string | undefined {
  const previous = from === undefined ? undefined : step.records.nodeRuns[from];
  if (from === undefined || previous === undefined) return undefined;
  const output = previous.output;
  const received = nodeType(step, from) === 'await_event' && typeof output === 'object' && output !== null && 'event' in output;
  return received ? from : previous.eventFrom;
}

export function startNodeRun(step: Step, nodeId: string, from: string | undefined): NodeRun {
  const nodeRun: NodeRun = { nodeId, status: 'running', attempt: 1, input: null, output: null, startedAt: step.at };
  const eventFrom = eventFromOf(step, from);
  if (eventFrom !== undefined) nodeRun.eventFrom = eventFrom;
  step.records.nodeRuns[nodeId] = nodeRun;
  return nodeRun;
}

/** Queues the targets of a node's outgoing edges (only those of `handle` when given). */
export function follow(step: Step, nodeId: string, handle?: string): void {
  for (const edge of step.program.graph.outgoing.get(nodeId) ?? []) {
    if (handle === undefined || edge.sourceHandle === handle) step.queue.push({ nodeId: edge.target, from: nodeId });
  }
}

export function succeed(step: Step, nodeRun: NodeRun, output: JsonValue): void {
  nodeRun.status = 'success';
  nodeRun.output = output;
  nodeRun.endedAt = step.at;
}

/** Marks never-reached nodes `skipped` (the untaken side of a condition, the rest of a join `any`). */
export function skip(step: Step, nodeIds: Iterable<string>): void {
  for (const nodeId of nodeIds) {
    if (step.records.nodeRuns[nodeId] !== undefined) continue;
    step.records.nodeRuns[nodeId] = { nodeId, status: 'skipped', attempt: 0, input: null, output: null, endedAt: step.at };
  }
}

/** Follows `handle` of a branching node and skips what only the other handles lead to. */
export function branch(step: Step, nodeId: string, handle: string): void {
  const sides = step.program.graph.onlyThrough.get(nodeId);
  for (const [other, only] of sides ?? []) if (other !== handle) skip(step, only);
  follow(step, nodeId, handle);
}

/** Releases what an active node holds (its agent run, timer, event wait) and marks it `cancelled`. */
export function cancelNode(step: Step, nodeRun: NodeRun): void {
  const runId = step.records.run.id;
  const { nodeId, attempt } = nodeRun;
  const type = nodeType(step, nodeId);
  if (type === 'agent') step.effects.push(cancelAgentRunEffect(runId, nodeRun));
  if (type === 'delay') step.effects.push({ type: 'clearTimer', timerId: timerId(runId, nodeId, attempt, 'delay') });
  if (type === 'await_event') releaseEventWait(step, nodeRun);
  nodeRun.status = 'cancelled';
  nodeRun.endedAt = step.at;
}

export function releaseEventWait(step: Step, nodeRun: NodeRun): void {
  const { nodeId, attempt } = nodeRun;
  step.effects.push({ type: 'clearTimer', timerId: timerId(step.records.run.id, nodeId, attempt, 'awaitTimeout') });
  step.effects.push({ type: 'clearEventWait', nodeId, attempt });
}

/** Ends the run: every node still active is cancelled first, so nothing it started outlives it. */
export function endRun(step: Step, status: Extract<AutomationRunStatus, 'success' | 'failed' | 'cancelled'>, error?: string): void {
  for (const nodeRun of Object.values(step.records.nodeRuns)) if (isActive(nodeRun)) cancelNode(step, nodeRun);
  const { run } = step.records;
  run.status = status;
  run.endedAt = step.at;
  if (error !== undefined) run.error = error;
  step.queue.length = 0;
}

/** A node's failure fails the run, naming the node. */
export function failNode(step: Step, nodeRun: NodeRun, message: string): void {
  nodeRun.status = 'failed';
  nodeRun.error = message;
  nodeRun.endedAt = step.at;
  endRun(step, 'failed', `node ${JSON.stringify(nodeRun.nodeId)} failed: ${message}`);
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
