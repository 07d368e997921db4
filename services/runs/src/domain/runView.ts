import type { RunEventDoc, RunDoc } from '../store/collections.js';
import type { InternalRun, Run, RunEvent } from '@ars/contract';

// The Run and RunEvent shapes are the contract package's (the gateway passes them on); named here for this service's callers.
export type { Run, RunEvent };

/** The public paths of a run's endpoints (relative to the host root). */
export function runPaths(runId: string): { eventsUrl: string; cancelUrl: string } {
  const id = encodeURIComponent(runId);
  return { eventsUrl: `/api/v1/svc/runs/${id}/events`, cancelUrl: `/api/v1/svc/runs/${id}/cancel` };
}

/** A stored run as the contract shows it: no owner, key, hash, outbox or deadlines. */
export function toRun(doc: RunDoc): Run {
  return {
    runId: doc._id,
    aiCallId: doc.aiCallId,
    sandboxRecordId: doc.sandboxRecordId,
    sandboxId: doc.sandboxId,
    repoId: doc.repoId,
    harness: doc.harness,
    status: doc.status,
    branch: { base: doc.branch.base, working: doc.branch.working, createBranch: doc.branch.createBranch },
    rootDirectory: doc.rootDirectory,
    ...runPaths(doc._id),
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
    error: doc.error,
    runtime: { provider: doc.runtime.provider, runId: doc.runtime.runId },
  };
}

/** A stored run as the system's own callers see it: the contract's Run, its `model`, its `usage` and its last agent message. */
export function toInternalRun(doc: RunDoc, lastMessage: string | null): InternalRun {
  return { ...toRun(doc), model: doc.model ?? null, usage: doc.usage ?? null, lastMessage };
}

/** The event type whose message is an agent's answer (the harness adapters' `assistant_message`). */
export const AGENT_MESSAGE_EVENT = 'assistant_message';

export function toRunEvent(doc: RunEventDoc): RunEvent {
  return {
    id: doc._id,
    type: doc.type,
    toolName: doc.toolName,
    message: doc.message,
    payload: doc.payload,
    createdAt: doc.createdAt.toISOString(),
  };
}

/** The RunEvent id of a run's event `seq`: deterministic, so a re-sent event is the same event. */
export function runEventId(runId: string, seq: number): string {
  return `${runId}:event:${seq}`;
}

/** The `seq` an id of this run's events names (runEventId's inverse), or undefined for any other text. */
export function seqOfRunEventId(runId: string, eventId: string): number | undefined {
  const prefix = `${runId}:event:`;
  if (!eventId.startsWith(prefix)) return undefined;
  const digits = eventId.slice(prefix.length);
  if (!/^(?:0|[1-9]\d{0,14})$/.test(digits)) return undefined;
  return Number(digits);
}
