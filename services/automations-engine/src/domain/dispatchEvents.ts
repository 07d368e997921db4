// What one transition of a run shows its readers: the changes between the records before and after,
// as dispatch events (the run record's `dispatchEvents` and the `automations.dispatch` topic).
import { sanitizeText } from '@ars/sanitize';
import type { DispatchEvent } from './automationRunView.js';
import type { NodeRun, RunRecords } from './run/index.js';

/** How many dispatch events a run keeps (the newest); `dispatchCount` counts every one. */
export const DISPATCH_KEPT = 500;
/** A dispatch message quotes node errors, which may quote what an expression read (an agent's last message): capped and sanitized like `run.error`. */
const DISPATCH_MESSAGE_CAP = 2_000;

type Draft = Omit<DispatchEvent, 'id' | 'seq' | 'at'>;

function nodeMessage(nodeRun: NodeRun): string {
  const base = `node "${nodeRun.nodeId}" ${nodeRun.status}`;
  return nodeRun.error ? `${base}: ${nodeRun.error}` : base;
}

function nodeChanges(before: RunRecords, after: RunRecords): Draft[] {
  const drafts: Draft[] = [];
  for (const nodeRun of Object.values(after.nodeRuns)) {
    const previous = before.nodeRuns[nodeRun.nodeId];
    if (previous?.status !== nodeRun.status) drafts.push({ type: `node.${nodeRun.status}`, nodeId: nodeRun.nodeId, message: nodeMessage(nodeRun) });
    if (nodeRun.agentRunId !== undefined && previous?.agentRunId === undefined) {
      drafts.push({ type: 'agent_run.started', nodeId: nodeRun.nodeId, message: `agent run ${nodeRun.agentRunId} started for node "${nodeRun.nodeId}"` });
    }
  }
  return drafts;
}

function inboxChanges(before: RunRecords, after: RunRecords): Draft[] {
  const known = new Set(before.inbox.map((event) => event.id));
  return after.inbox
    .filter((event) => !known.has(event.id))
    .map((event) => ({ type: 'event.received', nodeId: null, message: `event "${event.name}" received` }));
}

/** The dispatch events of one transition, numbered from `firstSeq`, in the order: events received, node changes, the run's own change. */
export function dispatchEventsOf(before: RunRecords, after: RunRecords, at: string, firstSeq: number): DispatchEvent[] {
  const drafts = [...inboxChanges(before, after), ...nodeChanges(before, after)];
  const run = after.run;
  if (before.run.status !== run.status)
    drafts.push({ type: `run.${run.status}`, nodeId: null, message: run.error ? `run ${run.status}: ${run.error}` : `run ${run.status}` });
  return drafts.map((draft, index) => ({
    id: `${run.id}:dispatch:${firstSeq + index}`,
    seq: firstSeq + index,
    ...draft,
    message: sanitizeText(draft.message, { cap: DISPATCH_MESSAGE_CAP }),
    at,
  }));
}
