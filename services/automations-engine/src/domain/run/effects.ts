import type { Harness } from '../nodeData.js';
import type { TimerKind } from './happenings.js';

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
