import { cancelAgentRunEffect, type Effect } from './effects.js';
import type { Happening } from './happenings.js';
import { awaitMatches, drain, receiveEvent, timeOut } from './nodeSteps.js';
import { INBOX_LIMIT, isActive, type InboxEvent, type NodeRun, type RunRecords } from './records.js';
import { createStep, endRun, errorMessage, failNode, follow, releaseEventWait, runIsOver, succeed, type RunProgram, type Step } from './transition.js';

/** The result of one happening: the run's new records and what the store must do, in order. */
export interface Transition {
  records: RunRecords;
  effects: Effect[];
  /** False when the happening changed nothing (a replay, a late timer): the store writes nothing. */
  changed: boolean;
}

type HappeningOf<T extends Happening['type']> = Extract<Happening, { type: T }>;

function triggered(step: Step): void {
  const { run } = step.records;
  if (run.status !== 'pending') return;
  run.status = 'running';
  run.startedAt = step.at;
  step.queue.push({ nodeId: step.program.graph.startId });
}

/** The agent node's run of `attempt` whose agent run the runs API has not confirmed yet. */
function unconfirmedAgentNode(step: Step, nodeId: string, attempt: number): NodeRun | undefined {
  const nodeRun = step.records.nodeRuns[nodeId];
  const isAgent = step.program.graph.nodes.get(nodeId)?.type === 'agent';
  return isAgent && nodeRun?.attempt === attempt && nodeRun.agentRunId === undefined ? nodeRun : undefined;
}

function agentRunStarted(step: Step, happening: HappeningOf<'agentRunStarted'>): void {
  const nodeRun = unconfirmedAgentNode(step, happening.nodeId, happening.attempt);
  if (nodeRun === undefined) return;
  nodeRun.agentRunId = happening.agentRunId;
  // Cancelled before the runs API answered: the cancel effect then knew only the idempotency key.
  if (nodeRun.status === 'cancelled') step.effects.push(cancelAgentRunEffect(step.records.run.id, nodeRun));
}

function agentRunRefused(step: Step, happening: HappeningOf<'agentRunRefused'>): void {
  const nodeRun = unconfirmedAgentNode(step, happening.nodeId, happening.attempt);
  if (nodeRun?.status !== 'running') return;
  failNode(step, nodeRun, `the runs service refused the agent run: ${happening.message}`);
}

function nodeRunOfAgentRun(step: Step, happening: HappeningOf<'agentRunFinished'>): NodeRun | undefined {
  const nodeRuns = Object.values(step.records.nodeRuns);
  const started = nodeRuns.find((nodeRun) => nodeRun.agentRunId === happening.agentRunId);
  if (started !== undefined || happening.nodeId === undefined) return started;
  const unconfirmed = step.records.nodeRuns[happening.nodeId];
  return unconfirmed?.agentRunId === undefined ? unconfirmed : undefined;
}

function agentRunFinished(step: Step, happening: HappeningOf<'agentRunFinished'>): void {
  const nodeRun = nodeRunOfAgentRun(step, happening);
  if (nodeRun?.status !== 'running' || step.program.graph.nodes.get(nodeRun.nodeId)?.type !== 'agent') return;
  const { agentRunId: runId, status, lastMessage, branch } = happening;
  nodeRun.agentRunId = runId;
  const output = { runId, status, lastMessage, branch };
  if (status === 'success') {
    succeed(step, nodeRun, output);
    return follow(step, nodeRun.nodeId);
  }
  nodeRun.output = output;
  failNode(step, nodeRun, `agent run ${runId} ${status === 'failed' ? 'failed' : 'was cancelled'}`);
}

function timerFired(step: Step, happening: HappeningOf<'timerFired'>): void {
  const nodeRun = step.records.nodeRuns[happening.nodeId];
  if (nodeRun?.status !== 'waiting' || nodeRun.attempt !== happening.attempt) return;
  const type = step.program.graph.nodes.get(nodeRun.nodeId)?.type;
  if (type === 'delay' && happening.kind === 'delay') {
    succeed(step, nodeRun, { firedAt: step.at });
    follow(step, nodeRun.nodeId);
  }
  if (type === 'await_event' && happening.kind === 'awaitTimeout') timeOut(step, nodeRun);
}

/** The await_event nodes waiting for events, the longest-waiting first. */
function waitingAwaits(step: Step): NodeRun[] {
  const { nodes } = step.program.graph;
  return Object.values(step.records.nodeRuns)
    .filter((nodeRun) => nodeRun.status === 'waiting' && nodes.get(nodeRun.nodeId)?.type === 'await_event')
    .sort((a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? '') || a.nodeId.localeCompare(b.nodeId));
}

/** Keeps the inbox bounded: consumed events leave first, then the oldest. */
function trimInbox(inbox: InboxEvent[]): void {
  while (inbox.length > INBOX_LIMIT) {
    const consumed = inbox.findIndex((event) => event.consumedBy !== undefined);
    inbox.splice(consumed === -1 ? 0 : consumed, 1);
  }
}

/** An event continues the longest-waiting await_event it matches; else it waits in the inbox for one. */
function eventReceived(step: Step, happening: HappeningOf<'eventReceived'>): void {
  const { inbox } = step.records;
  if (inbox.some((event) => event.id === happening.event.id)) return;
  const event: InboxEvent = { ...happening.event };
  inbox.push(event);
  for (const nodeRun of waitingAwaits(step)) {
    const node = step.program.graph.nodes.get(nodeRun.nodeId);
    if (node === undefined) continue;
    try {
      if (!awaitMatches(step, node, nodeRun, event)) continue;
    } catch (error) {
      releaseEventWait(step, nodeRun);
      return failNode(step, nodeRun, errorMessage(error));
    }
    releaseEventWait(step, nodeRun);
    receiveEvent(step, nodeRun, event);
    break;
  }
  trimInbox(inbox);
}

function cancelRequested(step: Step): void {
  endRun(step, 'cancelled');
}

const HANDLERS: { [T in Happening['type']]: (step: Step, happening: HappeningOf<T>) => void } = {
  triggered,
  agentRunStarted,
  agentRunRefused,
  agentRunFinished,
  timerFired,
  eventReceived,
  cancelRequested,
};

/** `running` while an agent runs, `waiting` while only timers, events and joins wait. */
function settleRunStatus(step: Step): void {
  const { run, nodeRuns } = step.records;
  if (runIsOver(step) || run.status === 'pending') return;
  const active = Object.values(nodeRuns).filter(isActive);
  if (active.length > 0) run.status = active.some((nodeRun) => nodeRun.status === 'running') ? 'running' : 'waiting';
}

/**
 * The engine: one happening applied to one run's records. Pure: the records given are not changed,
 * and the same happening applied again to the result changes nothing (`changed: false`, no effects).
 * A finished run takes only `agentRunStarted` (to cancel an agent run it learns of late).
 */
export function applyHappening(program: RunProgram, records: RunRecords, happening: Happening): Transition {
  const step = createStep(program, records, happening.at);
  if (!runIsOver(step) || happening.type === 'agentRunStarted') {
    (HANDLERS[happening.type] as (step: Step, happening: Happening) => void)(step, happening);
    drain(step);
    settleRunStatus(step);
  }
  const changed = JSON.stringify(step.records) !== JSON.stringify(records);
  if (changed) step.records.run.revision += 1;
  return { records: changed ? step.records : records, effects: changed ? step.effects : [], changed };
}
