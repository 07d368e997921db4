// Records → the contract's shapes (CONTRACT.md: Sandbox, Sandbox logs), exactly those fields.
import type { LifecycleEventDoc, SandboxDoc, SandboxLogsDoc } from '../store/collections.js';

export interface SandboxView {
  id: string;
  sandbox_id: string | null;
  repo_id: string;
  status: string;
  base_branch: string;
  working_branch: string;
  root_directory: string | null;
  preview_url: string | null;
  created_at: string;
  last_active_at: string;
  error: string | null;
}

export interface LifecycleEventView {
  id: string;
  event_type: string;
  decision_code: string | null;
  worker_run_id: string | null;
  payload: Record<string, unknown>;
  created_at: string;
}

export interface SandboxLogsView {
  sandbox: SandboxView & { install_log: string | null; dev_log: string | null };
  lifecycle_events: LifecycleEventView[];
}

export function toSandbox(doc: SandboxDoc): SandboxView {
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

export function toLifecycleEvent(doc: LifecycleEventDoc): LifecycleEventView {
  return {
    id: doc._id,
    event_type: doc.event_type,
    decision_code: doc.decision_code,
    worker_run_id: doc.worker_run_id,
    payload: doc.payload,
    created_at: doc.created_at.toISOString(),
  };
}

export function toSandboxLogs(doc: SandboxDoc, logs: SandboxLogsDoc | null, events: LifecycleEventDoc[]): SandboxLogsView {
  return {
    sandbox: { ...toSandbox(doc), install_log: logs?.install_log ?? null, dev_log: logs?.dev_log ?? null },
    lifecycle_events: events.map(toLifecycleEvent),
  };
}
