import type { Harness } from '../nodeData.js';
import type { TimerKind } from './happenings.js';
import type { AutomationRun, NodeRun } from './records.js';

/** What the store must do after writing a transition's records (through its outbox). */
export type Effect =
  | {
      type: 'startAgentRun';
      nodeId: string;
      attempt: number;
      /** `<automationRunId>:<nodeId>:<attempt>`: a crash between write and call never starts a second agent. */
      idempotencyKey: string;
      repoId: string;
      agentId: string;
      /** The node's modelId, else the agent's model; null when neither is known. */
      modelId: string | null;
      harness: Harness;
      prompt: string;
      createBranch: true;
    }
  | { type: 'cancelAgentRun'; nodeId: string; idempotencyKey: string; agentRunId?: string }
  | { type: 'setTimer'; timerId: string; nodeId: string; attempt: number; kind: TimerKind; dueAt: string }
  | { type: 'clearTimer'; timerId: string }
  | { type: 'waitForEvent'; nodeId: string; attempt: number; event: string }
  | { type: 'clearEventWait'; nodeId: string; attempt: number };

export function agentRunKey(automationRunId: string, nodeId: string, attempt: number): string {
  return `${automationRunId}:${nodeId}:${attempt}`;
}

export function timerId(automationRunId: string, nodeId: string, attempt: number, kind: TimerKind): string {
  return `${automationRunId}:${nodeId}:${attempt}:${kind}`;
}

/** What an agent node's run starts with; also its node run's `input` snapshot. */
export interface AgentRequest {
  agentId: string;
  modelId: string | null;
  harness: Harness;
  prompt: string;
}

type NodeAttempt = Pick<NodeRun, 'nodeId' | 'attempt'>;

export function startAgentRunEffect(run: Pick<AutomationRun, 'id' | 'repoId'>, nodeRun: NodeAttempt, request: AgentRequest): Effect {
  const { nodeId, attempt } = nodeRun;
  return { type: 'startAgentRun', nodeId, attempt, idempotencyKey: agentRunKey(run.id, nodeId, attempt), repoId: run.repoId, ...request, createBranch: true };
}

/** By key always (the start may be unconfirmed), by id when known. */
export function cancelAgentRunEffect(runId: string, nodeRun: NodeAttempt & Pick<NodeRun, 'agentRunId'>): Effect {
  const { nodeId, attempt, agentRunId } = nodeRun;
  const effect: Effect = { type: 'cancelAgentRun', nodeId, idempotencyKey: agentRunKey(runId, nodeId, attempt) };
  return agentRunId === undefined ? effect : { ...effect, agentRunId };
}

export function setTimerEffect(runId: string, nodeRun: NodeAttempt, kind: TimerKind, dueAt: string): Effect {
  const { nodeId, attempt } = nodeRun;
  return { type: 'setTimer', timerId: timerId(runId, nodeId, attempt, kind), nodeId, attempt, kind, dueAt };
}
