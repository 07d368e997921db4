import type { JsonValue } from '../expressions.js';

/** Automation run status (CONTRACT.md, Automation run records). */
export type AutomationRunStatus = 'pending' | 'running' | 'waiting' | 'success' | 'failed' | 'cancelled';
/** Node run status: the run's, plus `skipped` for the side of a condition that was not taken. */
export type NodeRunStatus = AutomationRunStatus | 'skipped';

export const TERMINAL_RUN_STATUSES: ReadonlySet<AutomationRunStatus> = new Set(['success', 'failed', 'cancelled']);

export interface AutomationRun {
  id: string;
  repoId: string;
  status: AutomationRunStatus;
  /** The trigger's input, checked against the start node's inputSchema before the run exists. */
  input: Record<string, JsonValue>;
  /** What set_variable nodes set, read in expressions as `vars.<name>`. */
  vars: Record<string, JsonValue>;
  /** Why the run failed, naming the node. */
  error?: string;
  /** +1 for every happening that changed something: the compare-and-set token of the store. */
  revision: number;
  startedAt?: string;
  endedAt?: string;
}

export interface NodeRun {
  nodeId: string;
  status: NodeRunStatus;
  /** Always 1 today (no retries); part of the agent run's idempotency key and of timer ids. */
  attempt: number;
  /** What the node worked with (the agent's rendered request, the expression, the due time …). */
  input: JsonValue;
  /** `nodes.<id>.output` in expressions; an agent's is `{runId, status, lastMessage, branch}`. */
  output: JsonValue;
  error?: string;
  agentRunId?: string;
  /** The await_event node whose received event is `event` here (the most recent on this node's path). */
  eventFrom?: string;
  /** A join's arrived branches, by the node each arrived from. */
  arrivals?: string[];
  startedAt?: string;
  endedAt?: string;
}

/** An event of `POST /automations/events` sent after the run started; `event` in expressions. */
export interface ReceivedEvent {
  /** Unique per event: a second delivery of the same id changes nothing. */
  id: string;
  name: string;
  data: JsonValue;
  receivedAt: string;
}

export interface InboxEvent extends ReceivedEvent {
  /** The await_event node that took it; an event continues at most one node. */
  consumedBy?: string;
}

/** Everything the engine knows of one automation run: the records it reads and writes. */
export interface RunRecords {
  run: AutomationRun;
  nodeRuns: Record<string, NodeRun>;
  /** Events delivered to the run, oldest first (at most INBOX_LIMIT, consumed ones dropped first). */
  inbox: InboxEvent[];
}

/** How many events one run keeps: enough for any await, bounded so a noisy sender cannot grow a run. */
export const INBOX_LIMIT = 200;

export interface NewRun {
  id: string;
  repoId: string;
  input: Record<string, JsonValue>;
}

/** The records of a run the trigger created: `pending` until its `triggered` happening. */
export function newRunRecords(run: NewRun): RunRecords {
  return { run: { ...run, status: 'pending', vars: {}, revision: 0 }, nodeRuns: {}, inbox: [] };
}

export function isTerminal(status: AutomationRunStatus): boolean {
  return TERMINAL_RUN_STATUSES.has(status);
}

/** A node run still holding something: an agent run, a timer or an event wait. */
export function isActive(nodeRun: NodeRun): boolean {
  return nodeRun.status === 'running' || nodeRun.status === 'waiting';
}
