import type { NodeType } from '../flowGraph.js';
import { cancelAgentRunEffect, setTimerEffect, startAgentRunEffect, type AgentRequest, type Effect } from './effects.js';
import type { RunProgram } from './transition.js';
import type { NodeRun, RunRecords } from './records.js';

/** The `input` snapshot fields the outstanding effects are rebuilt from (written by nodeSteps.ts). */
interface WaitInput {
  dueAt: string;
  event?: string;
}

function outstandingOf(records: RunRecords, nodeRun: NodeRun, type: NodeType | undefined): Effect[] {
  const { run } = records;
  const unconfirmed = type === 'agent' && nodeRun.agentRunId === undefined;
  if (unconfirmed && nodeRun.status === 'running') return [startAgentRunEffect(run, nodeRun, nodeRun.input as unknown as AgentRequest)];
  if (unconfirmed && nodeRun.status === 'cancelled') return [cancelAgentRunEffect(run.id, nodeRun)];
  if (nodeRun.status !== 'waiting') return [];
  const input = nodeRun.input as unknown as WaitInput;
  if (type === 'delay') return [setTimerEffect(run.id, nodeRun, 'delay', input.dueAt)];
  if (type !== 'await_event') return [];
  return [
    { type: 'waitForEvent', nodeId: nodeRun.nodeId, attempt: nodeRun.attempt, event: input.event ?? '' },
    setTimerEffect(run.id, nodeRun, 'awaitTimeout', input.dueAt),
  ];
}

/**
 * The effects a run's records say must be in place, rebuilt from the node runs' input snapshots
 * (never re-rendered: vars may have moved on): an agent run not yet confirmed is started (or, its
 * node cancelled, cancelled) by its key, a waiting delay's timer, a waiting await_event's wait and
 * timer. Each is idempotent (a start by its key, a timer by its id, a wait by node and attempt), so
 * a sweeper may perform them again after a crash between writing a transition and its effects.
 */
export function outstandingEffects(program: RunProgram, records: RunRecords): Effect[] {
  return Object.values(records.nodeRuns).flatMap((nodeRun) => outstandingOf(records, nodeRun, program.graph.nodes.get(nodeRun.nodeId)?.type));
}
