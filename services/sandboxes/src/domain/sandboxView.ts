// Records → the contract's shapes (CONTRACT.md: Sandbox, Sandbox logs), exactly those fields.
import type { LifecycleEvent, Sandbox, SandboxLogs } from '@ars/contract';
import type { LifecycleEventDoc, SandboxDoc, SandboxLogsDoc } from '../store/collections.js';

// The shapes are the contract package's (the gateway passes them on); named here for this service's callers.
export type { LifecycleEvent, Sandbox, SandboxLogs };

export function toSandbox(doc: SandboxDoc): Sandbox {
  return {
    id: doc._id,
    sandbox_id: doc.sandbox_id,
    repo_id: doc.repo_id,
    status: doc.status,
    base_branch: doc.base_branch,
    working_branch: doc.working_branch,
    root_directory: doc.root_directory,
    preview_url: doc.preview_url,
    created_at: doc.created_at.toISOString(),
    last_active_at: doc.last_active_at.toISOString(),
    error: doc.error,
  };
}

export function toLifecycleEvent(doc: LifecycleEventDoc): LifecycleEvent {
  return {
    id: doc._id,
    event_type: doc.event_type,
    decision_code: doc.decision_code,
    worker_run_id: doc.worker_run_id,
    payload: doc.payload,
    created_at: doc.created_at.toISOString(),
  };
}

export function toSandboxLogs(doc: SandboxDoc, logs: SandboxLogsDoc | null, events: LifecycleEventDoc[]): SandboxLogs {
  return {
    sandbox: { ...toSandbox(doc), install_log: logs?.install_log ?? null, dev_log: logs?.dev_log ?? null },
    lifecycle_events: events.map(toLifecycleEvent),
  };
}
