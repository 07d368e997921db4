import type { OutboxEntry, RunAllocation, RunFailureKind, RunSandboxQueuedData } from '@ars/bus';
import type { CollectionIndexes } from '@ars/mongo';
import type { Harness, RunUsage } from '@ars/contract';
import type { RunStatus } from '../domain/runStatus.js';

/** The runs service's collections (its own database only) and their documents. */
export const COLLECTIONS = {
  runs: 'runs',
  runEvents: 'run_events',
  idempotency: 'run_idempotency',
  processed: 'bus_processed_messages',
  conversations: 'conversations',
  workspaceSessions: 'workspace_sessions',
} as const;

/** How long an Idempotency-Key is remembered (the contract asks for at least 24 h). */
export const IDEMPOTENCY_RETENTION_SECONDS = 7 * 24 * 3600;

/** Who ended a run: its sandbox (`runs.finished`) or this service's watchdog. */
export type FinishedBy = 'sandbox' | 'watchdog';

export interface RunDoc {
  /** The run id (`runId`). */
  _id: string;
  userId: string;
  aiCallId: string;
  repoId: string;
  harness: Harness;
  prompt: string;
  status: RunStatus;
  branch: { base: string; working: string; createBranch: boolean };
  rootDirectory: string | null;
  conversationId: string | null;
  workspaceSessionId: string | null;
  /**
   * The run's `conversationId` while the run is live (set at insert, `$unset` by the one write that
   * ends a run, `RunStore.end`): the unique partial index `live_conversation` on (userId, this) makes
   * "one live run per conversation" exact under races. Absent when ended or without a conversation.
   */
  liveConversation?: string;
  /** The same for `workspaceSessionId` (index `live_workspace_session`). */
  liveWorkspaceSession?: string;
  mode: string | null;
  /** The harness's model (internal `model` of the start); null: the harness's default. Absent on runs written before it existed. */
  model?: string | null;
  /** The run's token totals from `runs.finished`; null or absent until then, or when the harness reported none. */
  usage?: RunUsage | null;
  sandboxRecordId: string | null;
  sandboxId: string | null;
  runtime: { provider: string | null; runId: string | null };
  error: string | null;
  /** Why a failed run failed (`runs.finished` `failure`, or the watchdog's). */
  failure: RunFailureKind | null;
  idempotencyKey: string;
  bodyHash: string;
  /** The harness limit sent to sandboxes. */
  timeoutMs: number;
  /** No sandbox allocated by then: the watchdog fails the run. */
  startBy: Date;
  /** No result by then (createdAt + timeoutMs + grace): the watchdog fails the run as lost. */
  lostBy: Date;
  /** The highest stored event seq + 1 (events are 0, 1, 2 … per run). */
  nextSeq: number;
  finishedBy: FinishedBy | null;
  /** `eventCount` of `runs.finished`: events with a lower seq still arriving are stored. */
  finishedEventCount: number | null;
  /**
   * A `runs.finished` read before all the events it counts were stored (the topics are consumed
   * independently): the run stays live until they are, so a terminal run always shows all its events.
   */
  heldFinish: HeldFinish | null;
  cancelRequestedAt: Date | null;
  /**
   * The last `run.sandbox-queued` notice: sandboxes holds the run in its queue (`queued`) or took it
   * out (`dequeued`); each notice restarted `startBy` (and pushed `lostBy`) from when it was read.
   * Absent for a run that never waited.
   */
  queue?: QueueNotice;
  createdAt: Date;
  updatedAt: Date;
  _outbox?: OutboxEntry[];
}

export interface QueueNotice {
  state: 'queued' | 'dequeued';
  reason: RunSandboxQueuedData['reason'];
  /** When sandboxes queued the request. */
  queuedAt: Date;
  /** When runs read this notice. */
  noticedAt: Date;
}

export interface HeldFinish {
  status: 'success' | 'failed' | 'cancelled';
  error: string | null;
  failure: RunFailureKind | null;
  eventCount: number;
  /** The finish's token totals (absent on finishes held before usage existed). */
  usage?: RunUsage | null;
  /** The run's sandbox as the finish names it, applied with it where the run has none by then; null or absent when it names none. */
  allocation?: RunAllocation | null;
  receivedAt: Date;
}

export interface RunEventDoc {
  /** `<runId>:event:<seq>`: the RunEvent id. */
  _id: string;
  runId: string;
  seq: number;
  type: string;
  toolName: string | null;
  message: string | null;
  /** An agent message longer than `message` may be, whole (never shown as an event; the run's last message reads it). */
  fullText?: string;
  payload: Record<string, unknown>;
  /** When the harness emitted it. */
  createdAt: Date;
  storedAt: Date;
}

export interface IdempotencyDoc {
  userId: string;
  key: string;
  bodyHash: string;
  /** The run this key creates (or created). */
  runId: string;
  createdAt: Date;
}

/**
 * A conversation's binding (issue 16): the repository and harness of its first run, per user. Written
 * once, by the first start naming it (insert; a racing second insert is refused by the unique index
 * and reads the winner's), never changed, so every later run is compared with one stored answer.
 */
export interface ConversationDoc {
  userId: string;
  conversationId: string;
  repoId: string;
  harness: Harness;
  createdAt: Date;
}

/** A workspace session's binding: the repository of its first run, per user (as ConversationDoc). */
export interface WorkspaceSessionDoc {
  userId: string;
  workspaceSessionId: string;
  repoId: string;
  createdAt: Date;
}

export const RUNS_INDEXES: readonly CollectionIndexes[] = [
  {
    collection: COLLECTIONS.runs,
    indexes: [
      { key: { userId: 1, createdAt: -1 }, name: 'user_created' },
      { key: { status: 1, startBy: 1 }, name: 'status_start_by' },
      { key: { status: 1, lostBy: 1 }, name: 'status_lost_by' },
      { key: { 'heldFinish.receivedAt': 1 }, name: 'held_finish_received' },
      // Only live runs carry these fields: at most one live run per (user, conversation) and per
      // (user, workspace session). Compound with userId (not one "<user>#<id>" string) so no
      // separator can make two users' ids meet.
      { key: { userId: 1, liveConversation: 1 }, name: 'live_conversation', unique: true, partialFilterExpression: { liveConversation: { $exists: true } } },
      {
        key: { userId: 1, liveWorkspaceSession: 1 },
        name: 'live_workspace_session',
        unique: true,
        partialFilterExpression: { liveWorkspaceSession: { $exists: true } },
      },
    ],
  },
  { collection: COLLECTIONS.conversations, indexes: [{ key: { userId: 1, conversationId: 1 }, name: 'user_conversation', unique: true }] },
  { collection: COLLECTIONS.workspaceSessions, indexes: [{ key: { userId: 1, workspaceSessionId: 1 }, name: 'user_workspace_session', unique: true }] },
  { collection: COLLECTIONS.runEvents, indexes: [{ key: { runId: 1, seq: 1 }, name: 'run_seq', unique: true }] },
  {
    collection: COLLECTIONS.idempotency,
    indexes: [
      { key: { userId: 1, key: 1 }, name: 'user_key', unique: true },
      { key: { createdAt: 1 }, name: 'created_ttl', expireAfterSeconds: IDEMPOTENCY_RETENTION_SECONDS },
    ],
  },
];
