import type { CollectionIndexes } from '@ars/mongo';
import type { OutboxEntry, RunFailureKind, RunRequestedData, RunSandboxQueuedData } from '@ars/bus';
import type { RunUsage } from '@ars/contract';
import type { ProviderName } from '../providers/provider.js';

/** The sandboxes service's collections (its own database only) and their documents. */
export const COLLECTIONS = {
  sandboxes: 'sandboxes',
  lifecycleEvents: 'sandbox_lifecycle_events',
  sessions: 'sessions',
  logs: 'sandbox_logs',
  snapshots: 'sandbox_snapshots',
  conversationThreads: 'conversation_threads',
} as const;

/** Sandbox status values this service writes (the contract leaves the string open). */
export type SandboxStatus = 'provisioning' | 'ready' | 'stopped' | 'failed';

/** A sandbox record, shaped for the contract's Sandbox (plus the owner and the run it serves). */
export interface SandboxDoc {
  /** The service's record id: the contract's `id` (`sbx_…`). */
  _id: string;
  /** The provider's id (`local-…`); null until the provider made it. */
  sandbox_id: string | null;
  userId: string;
  repo_id: string;
  status: SandboxStatus;
  base_branch: string;
  working_branch: string;
  root_directory: string | null;
  preview_url: string | null;
  created_at: Date;
  last_active_at: Date;
  error: string | null;
  provider: ProviderName;
  /** The run this sandbox was allocated for; null for a sandbox made through `POST /sandboxes`. */
  runId: string | null;
  /** The local directory it occupies (local provider), to release it after a restart; null elsewhere. */
  dir: string | null;
  /**
   * Set while a public sandbox is live (`provisioning`, `ready`) and removed when it stops: a unique
   * sparse index on it lets exactly one of two racing identical creates make the sandbox.
   */
  reuse_key?: string;
  /**
   * One of the owner's SANDBOX_MAX_LIVE_PER_USER slots (`<userId>#<n>`), set while the sandbox is
   * live and removed when it stops: a unique sparse index makes the per-user cap exact under races.
   */
  live_slot?: string;
  /** Lifecycle events recorded so far (each event's `seq`): the store keeps the newest ones. */
  lifecycle_seq?: number;
  /** The process instance keeping a live public sandbox (its dev server, its idle timer) and its heartbeat. */
  instanceId: string | null;
  heartbeat_at: Date | null;
  /** The snapshot it was restored from. */
  restored_from: string | null;
  /**
   * The workspace session whose runs share this sandbox (`POST /runs` `workspaceSessionId`): it
   * outlives each run, kept by an instance between runs and stopped (snapshotted) when idle.
   */
  workspace_session_id?: string | null;
  /** Set when another instance needs this live workspace sandbox: its keeper stops it (snapshotted) at its next pass. */
  handover_requested_at?: Date | null;
}

/** The logs of a public sandbox (one document per sandbox, `_id` = the record id). */
export interface SandboxLogsDoc {
  _id: string;
  userId: string;
  install_log: string | null;
  dev_log: string | null;
  updated_at: Date;
}

/** A snapshot of a stopped sandbox's working tree (an archive the provider wrote, on this service's disk). */
export interface SnapshotDoc {
  /** `snap_…`: the `restoreSnapshotId` of a later create. */
  _id: string;
  userId: string;
  repo_id: string;
  sandbox_record_id: string;
  base_branch: string;
  working_branch: string;
  root_directory: string | null;
  provider: ProviderName;
  /** The archive's path under SNAPSHOT_ROOT. */
  file: string;
  bytes: number;
  created_at: Date;
  /** The workspace session of the sandbox it was taken of: its next run restores the newest one. */
  workspace_session_id?: string | null;
  /** Set while an instance deletes it (retention): the snapshot is gone for restores from then on. */
  deleting_at?: Date;
  deleting_by?: string;
}

/** A file of a harness thread, relative to the harness's HOME (`threadState.ts` of the harness adapters). */
export interface ThreadFileDoc {
  path: string;
  content: string;
}

/**
 * What a harness needs to resume a conversation's thread in another sandbox (`POST /runs`
 * `conversationId`): its thread id and its session files, sanitized. `_id` = `<userId>#<conversationId>`.
 */
export interface ConversationThreadDoc {
  _id: string;
  userId: string;
  conversationId: string;
  harness: string;
  repo_id: string;
  thread_id: string;
  files: ThreadFileDoc[];
  bytes: number;
  /** The thread outgrew MAX_THREAD_STATE_BYTES (nothing of it kept): the conversation's next run fails, saying so. */
  over_limit?: boolean;
  /** The run that wrote this state last. */
  run_id: string;
  updated_at: Date;
}

/** One entry of a sandbox's lifecycle (the contract's `lifecycle_events`). */
export interface LifecycleEventDoc {
  _id: string;
  sandboxRecordId: string;
  userId: string;
  event_type: string;
  decision_code: string | null;
  worker_run_id: string | null;
  payload: Record<string, unknown>;
  created_at: Date;
  /** The sandbox's event number (1, 2, …): events more than SANDBOX_LIFECYCLE_EVENTS_MAX behind the newest are deleted. */
  seq?: number;
}

/**
 * The state of a run's session in this service:
 * - `cancel_requested`: runs cancelled the run before its request arrived (no sandbox; a placeholder);
 * - `queued`: the request waits in an instance's queue (SANDBOX_MAX_SESSIONS, or its user's live cap);
 * - `allocating`: the request was claimed by an instance, the sandbox is being made;
 * - `running`: the harness runs (or the result is being pushed);
 * - `finished`: over; `result` says how, and `run.finished` is in the outbox or already published.
 */
export type SessionState = 'cancel_requested' | 'queued' | 'allocating' | 'running' | 'finished';

/**
 * Why a queued run waits: this instance runs SANDBOX_MAX_SESSIONS sessions, its user holds
 * SANDBOX_MAX_LIVE_PER_USER live sandboxes, or its workspace session's sandbox is held (by its previous
 * run, or by another instance handing it over).
 */
export type QueueReason = RunSandboxQueuedData['reason'];

/** What a queued session keeps so any instance can start it later (an instance that stopped hands its queue on). */
export interface QueuedRequest {
  request: RunRequestedData;
  /** Arrival: the queue's order. */
  queuedAt: Date;
  reason: QueueReason;
  /** Queued notices sent so far (each renews runs' start deadline). */
  notices: number;
  /** When the next notice is due. */
  renewAt: Date;
  /** The start deadline runs holds for it now (the request's startBy, then the last notice + the window). */
  holdUntil: Date;
  /** Notices are renewed every this many ms (a third of the start window runs gave the request). */
  renewEveryMs: number;
  /** W3C trace headers of the run (the context its request arrived in): its session runs in that trace, on any instance. */
  trace?: Record<string, string>;
}

export interface SessionResult {
  status: 'success' | 'failed' | 'cancelled';
  error: string | null;
  failure: RunFailureKind | null;
  eventCount: number;
  /** The run's token totals (summed usage reports); absent when the harness reported none. */
  usage?: RunUsage;
}

/** One run's session: claimed by one process instance, which heartbeats it while it lives. */
export interface SessionDoc {
  /** The run id: one session per run, ever. */
  _id: string;
  /** Sandboxes' own id for this run's session (the Run's `runtime.runId`). */
  sessionId: string;
  userId: string;
  state: SessionState;
  /** The process instance that runs it (null for a cancel placeholder). */
  instanceId: string | null;
  heartbeatAt: Date | null;
  sandboxRecordId: string | null;
  sandboxId: string | null;
  /**
   * The Run's `runtime.provider` as `run.sandbox-allocated` reports it, set with `sandboxId` when the
   * session runs: its `run.finished` repeats the allocation. Absent before, and on sessions written
   * before it was kept.
   */
  runtimeProvider?: string;
  /** The sandbox's directory (removed when the session ends, also when it is swept as lost). */
  sandboxDir: string | null;
  /** Events published so far (the next seq). */
  eventCount: number;
  /** Set by a cancel that reached a session another instance runs: that instance aborts it. */
  cancelRequested: boolean;
  result: SessionResult | null;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
  /** Set while `queued`. */
  queue?: QueuedRequest;
  _outbox?: OutboxEntry[];
}

export const SANDBOXES_INDEXES: readonly CollectionIndexes[] = [
  {
    collection: COLLECTIONS.sandboxes,
    indexes: [
      { key: { userId: 1, created_at: -1 }, name: 'user_created' },
      { key: { userId: 1, repo_id: 1, created_at: -1 }, name: 'user_repo_created' },
      { key: { userId: 1, status: 1, created_at: -1 }, name: 'user_status_created' },
      { key: { reuse_key: 1 }, name: 'live_reuse_key', unique: true, sparse: true },
      { key: { live_slot: 1 }, name: 'live_slot', unique: true, sparse: true },
      { key: { status: 1, heartbeat_at: 1 }, name: 'status_heartbeat' },
    ],
  },
  {
    collection: COLLECTIONS.snapshots,
    indexes: [
      { key: { userId: 1, created_at: -1 }, name: 'user_created' },
      { key: { created_at: 1 }, name: 'created' },
      { key: { userId: 1, workspace_session_id: 1, created_at: -1 }, name: 'user_workspace_created' },
    ],
  },
  {
    collection: COLLECTIONS.lifecycleEvents,
    indexes: [
      { key: { sandboxRecordId: 1, created_at: 1 }, name: 'sandbox_created' },
      { key: { sandboxRecordId: 1, seq: 1 }, name: 'sandbox_seq' },
    ],
  },
  {
    collection: COLLECTIONS.sessions,
    indexes: [
      { key: { state: 1, heartbeatAt: 1 }, name: 'state_heartbeat' },
      { key: { instanceId: 1, state: 1 }, name: 'instance_state' },
      { key: { state: 1, 'queue.queuedAt': 1 }, name: 'state_queued' },
    ],
  },
];
