import { evaluateCondition, evaluateExpression } from '../expressions.js';
import type { FlowNode, NodeType } from '../flowGraph.js';
import { agentHarness } from '../harness.js';
import { typedNodeData } from '../nodeData.js';
import { renderPromptTemplate } from '../promptTemplate.js';
import { setTimerEffect, startAgentRunEffect, type AgentRequest } from './effects.js';
import { NotExecutableError } from './executableGraph.js';
import type { InboxEvent, NodeRun, ReceivedEvent } from './records.js';
import {
  branch,
  cancelNode,
  endRun,
  errorMessage,
  eventFromOf,
  expressionContext,
  failNode,
  follow,
  runIsOver,
  skip,
  startNodeRun,
  succeed,
  type Arrival,
  type Step,
} from './transition.js';

function dueAt(at: string, seconds: number): string {
  return new Date(Date.parse(at) + seconds * 1000).toISOString();
}

function runAgent(step: Step, node: FlowNode, nodeRun: NodeRun): void {
  const data = typedNodeData('agent', node.data);
  const { catalog } = step.program;
  const modelId = data.modelId ?? catalog.agents[data.agentId]?.modelId ?? null;
  const harness = agentHarness(data, modelId === null ? undefined : catalog.models[modelId]);
  const prompt = renderPromptTemplate(data.prompt ?? '', expressionContext(step, nodeRun));
  const request: AgentRequest = { agentId: data.agentId, modelId, harness, prompt };
  nodeRun.input = { ...request };
  step.effects.push(startAgentRunEffect(step.records.run, nodeRun, request));
}

function runCondition(step: Step, node: FlowNode, nodeRun: NodeRun): void {
  const { expression } = typedNodeData('condition', node.data);
  nodeRun.input = { expression };
  const result = evaluateCondition(expression, expressionContext(step, nodeRun));
  succeed(step, nodeRun, { result });
  branch(step, node.id, String(result));
}

function runSetVariable(step: Step, node: FlowNode, nodeRun: NodeRun): void {
  const { name, value: expression } = typedNodeData('set_variable', node.data);
  nodeRun.input = { name, expression };
  const value = evaluateExpression(expression, expressionContext(step, nodeRun));
  step.records.run.vars[name] = value;
  succeed(step, nodeRun, { value });
  follow(step, node.id);
}

function runDelay(step: Step, node: FlowNode, nodeRun: NodeRun): void {
  const { seconds } = typedNodeData('delay', node.data);
  const due = dueAt(step.at, seconds);
  nodeRun.status = 'waiting';
  nodeRun.input = { seconds, dueAt: due };
  step.effects.push(setTimerEffect(step.records.run.id, nodeRun, 'delay', due));
}

/** Whether `event` continues this await_event: its name, then its `match` (with `event` in scope). */
export function awaitMatches(step: Step, node: FlowNode, nodeRun: NodeRun, event: ReceivedEvent): boolean {
  const { event: name, match } = typedNodeData('await_event', node.data);
  if (event.name !== name) return false;
  if (match === undefined) return true;
  const { name: eventName, data, receivedAt } = event;
  return evaluateCondition(match, { ...expressionContext(step, nodeRun), event: { name: eventName, data, receivedAt } });
}

/** An await_event takes `event`: its output holds it, and the `"received"` side continues. */
export function receiveEvent(step: Step, nodeRun: NodeRun, event: InboxEvent): void {
  event.consumedBy = nodeRun.nodeId;
  const { name, data, receivedAt } = event;
  succeed(step, nodeRun, { event: { name, data, receivedAt } });
  branch(step, nodeRun.nodeId, 'received');
}

function runAwaitEvent(step: Step, node: FlowNode, nodeRun: NodeRun): void {
  const { event, match, timeoutSeconds } = typedNodeData('await_event', node.data);
  const due = dueAt(step.at, timeoutSeconds);
  nodeRun.input = { event, match: match ?? null, timeoutSeconds, dueAt: due };
  // An event sent after the run started but before this node was reached waits in the inbox.
  const early = step.records.inbox.find((candidate) => candidate.consumedBy === undefined && awaitMatches(step, node, nodeRun, candidate));
  if (early !== undefined) return receiveEvent(step, nodeRun, early);
  nodeRun.status = 'waiting';
  step.effects.push({ type: 'waitForEvent', nodeId: node.id, attempt: nodeRun.attempt, event });
  step.effects.push(setTimerEffect(step.records.run.id, nodeRun, 'awaitTimeout', due));
}

/** An await_event's timeout fired first: its wait is released and the `"timeout"` side continues. */
export function timeOut(step: Step, nodeRun: NodeRun): void {
  step.effects.push({ type: 'clearEventWait', nodeId: nodeRun.nodeId, attempt: nodeRun.attempt });
  succeed(step, nodeRun, { timedOut: true });
  branch(step, nodeRun.nodeId, 'timeout');
}

type NodeStep = (step: Step, node: FlowNode, nodeRun: NodeRun) => void;

/** What each node type does when reached (DESIGN.md, Automations); join is `arriveAtJoin`. */
const NODE_STEPS: Record<Exclude<NodeType, 'join'>, NodeStep> = {
  start: (step, node, nodeRun) => {
    succeed(step, nodeRun, step.records.run.input);
    follow(step, node.id);
  },
  agent: runAgent,
  condition: runCondition,
  parallel: (step, node, nodeRun) => {
    succeed(step, nodeRun, {});
    follow(step, node.id);
  },
  delay: runDelay,
  await_event: runAwaitEvent,
  set_variable: runSetVariable,
  end: (step, _node, nodeRun) => {
    succeed(step, nodeRun, {});
    endRun(step, 'success');
  },
};

/** Cancels what is still active between a join `any`'s parallel and the join; skips what was never reached. */
function cancelRegion(step: Step, region: ReadonlySet<string>): void {
  for (const nodeId of region) {
    const nodeRun = step.records.nodeRuns[nodeId];
    if (nodeRun?.status === 'running' || nodeRun?.status === 'waiting') cancelNode(step, nodeRun);
  }
  skip(step, region);
}

/** A join waits (`waiting`) for every branch of its parallel (`all`), or continues with the first (`any`). */
function arriveAtJoin(step: Step, node: FlowNode, from: string | undefined): void {
  const plan = step.program.graph.joins.get(node.id);
  if (plan === undefined) throw new NotExecutableError(`join ${node.id} closes no parallel`);
  const nodeRun = step.records.nodeRuns[node.id] ?? startNodeRun(step, node.id, from);
  if (nodeRun.status !== 'running' && nodeRun.status !== 'waiting') return;
  const arrivals = [...(nodeRun.arrivals ?? []), from ?? ''];
  nodeRun.arrivals = arrivals;
  const mode = typedNodeData('join', node.data).mode ?? 'all';
  nodeRun.input = { mode, branches: plan.branchCount };
  if (mode === 'all' && arrivals.length < plan.branchCount) {
    nodeRun.status = 'waiting';
    return;
  }
  const eventFrom = eventFromOf(step, from);
  if (eventFrom !== undefined) nodeRun.eventFrom = eventFrom;
  succeed(step, nodeRun, { arrivals });
  if (mode === 'any') cancelRegion(step, plan.region);
  follow(step, node.id);
}

function reach(step: Step, arrival: Arrival): void {
  const node = step.program.graph.nodes.get(arrival.nodeId);
  if (node === undefined) throw new NotExecutableError(`node ${arrival.nodeId} does not exist`);
  if (node.type === 'join') return arriveAtJoin(step, node, arrival.from);
  // No node runs twice: a node already recorded (run, skipped, cancelled) is not started again.
  if (step.records.nodeRuns[node.id] !== undefined) return;
  const nodeRun = startNodeRun(step, node.id, arrival.from);
  try {
    NODE_STEPS[node.type](step, node, nodeRun);
  } catch (error) {
    if (error instanceof NotExecutableError) throw error;
    failNode(step, nodeRun, errorMessage(error));
  }
}

/** Runs every node reachable without waiting, in the order reached, until the run waits or ends. */
export function drain(step: Step): void {
  for (let arrival = step.queue.shift(); arrival !== undefined && !runIsOver(step); arrival = step.queue.shift()) reach(step, arrival);
}
