import type { ReceivedEvent } from './records.js';

/**
 * One thing that happened to a run, as the store delivers it (possibly twice). `at` is the time it
 * happened (ISO 8601): the engine has no clock of its own.
 */
export type Happening =
  | { type: 'triggered'; at: string }
  /** The runs API accepted the start of a node's agent run (the answer of a `startAgentRun` effect). */
  | { type: 'agentRunStarted'; nodeId: string; attempt: number; agentRunId: string; at: string }
  /** The runs API refused to start it (a 4xx): the node fails. */
  | { type: 'agentRunRefused'; nodeId: string; attempt: number; message: string; at: string }
  | {
      type: 'agentRunFinished';
      agentRunId: string;
      status: 'success' | 'failed' | 'cancelled';
      lastMessage: string | null;
      branch: string | null;
      /** When the store met the finish before it recorded `agentRunStarted`. */
      nodeId?: string;
      at: string;
    }
  | { type: 'timerFired'; nodeId: string; attempt: number; kind: TimerKind; at: string }
  | { type: 'eventReceived'; event: ReceivedEvent; at: string }
  | { type: 'cancelRequested'; at: string };

export type TimerKind = 'delay' | 'awaitTimeout';
