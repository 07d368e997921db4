/**
 * What a cancel found in sandboxes: a live session aborted (`signalled`), no session yet, recorded
 * so the request starts nothing, or a queued one ended (`not_started`), or a session already over
 * (`finished`).
 */
export type CancelState = 'signalled' | 'not_started' | 'finished';

/** What sandboxes answers (202) to `POST /internal/runs/:runId/cancel`. */
export interface SandboxCancelAnswer {
  runId: string;
  state: CancelState;
}

/** CONTRACT.md, Sandbox: exactly these fields. */
export interface Sandbox {
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

/** CONTRACT.md, Sandbox logs: one lifecycle event. */
export interface LifecycleEvent {
  id: string;
  event_type: string;
  decision_code: string | null;
  worker_run_id: string | null;
  payload: Record<string, unknown>;
  created_at: string;
}

/** CONTRACT.md, Sandbox logs: the sandbox with its logs, and its lifecycle events. */
export interface SandboxLogs {
  sandbox: Sandbox & { install_log: string | null; dev_log: string | null };
  lifecycle_events: LifecycleEvent[];
}
