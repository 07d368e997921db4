import type { OutboxEntry } from '@ars/bus';
import type { ReviewFinding } from '@ars/contract';
import type { CollectionIndexes } from '@ars/mongo';
import type { AutomationStatus } from '../domain/automationView.js';
import type { AiCall, DispatchEvent, ModelPricing } from '../domain/automationRunView.js';
import type { AgentCatalog, AutomationRunStatus } from '../domain/run/index.js';

/** The automations engine's collections (its own database only) and their documents. */
export const COLLECTIONS = {
  automations: 'automations',
  automationVersions: 'automation_versions',
  automationRuns: 'automation_runs',
  timers: 'automation_timers',
  events: 'automation_events',
  processed: 'bus_processed_messages',
} as const;

/**
 * One automation. Graphs are stored as JSON text: a node's `data` may hold any JSON (a start node's
 * `inputSchema` with `$schema`, `$ref`, keys with dots, deep nesting) that MongoDB field names and
 * BSON depth do not all take, and nothing queries inside a graph.
 */
export interface AutomationDoc {
  _id: string;
  /** The owner: every read and write is scoped to it. */
  userId: string;
  installationId: number;
  name: string;
  description: string | null;
  notes: string | null;
  status: AutomationStatus;
  draftGraphJson: string;
  publishedVersionId: string | null;
  /** The published version's number: a pointer only ever moves to a higher one. */
  publishedVersionNumber: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A published version: written once, never updated. */
export interface AutomationVersionDoc {
  _id: string;
  automationId: string;
  /** 1, 2, 3 … per automation (unique with `automationId`). */
  versionNumber: number;
  graphJson: string;
  createdAt: Date;
}

export type { AutomationRunStatus };

/**
 * One automation run: the engine core's records (as JSON text, like graphs: the trigger's `input`
 * may hold any JSON) and what the store keeps beside them. Every change is a compare-and-set on
 * `revision` that also writes the run's dispatch messages (`_outbox`), so a transition and its
 * `automations.dispatch` messages never part.
 */
export interface AutomationRunDoc {
  _id: string;
  automationId: string;
  /** The automation's owner: the agent runs are started as this user. */
  userId: string;
  installationId: number;
  /** The published version the run is pinned to. */
  versionId: string;
  versionNumber: number;
  repoId: string;
  /** The branch its agent runs start from (the trigger's `baseBranch`); null or absent: the repository's default branch. */
  baseBranch?: string | null;
  status: AutomationRunStatus;
  /** The core's `RunRecords` as JSON text; its `run.revision` equals `revision`. */
  recordsJson: string;
  revision: number;
  /** The agents' models, the models' providers and prices when it was triggered (agent nodes read it). */
  catalog: AgentCatalog & { pricing: Record<string, ModelPricing> };
  /** The trigger's `Idempotency-Key` and the hash of its request (unique per user). */
  trigger: { idempotencyKey: string; requestHash: string };
  /** Every agent run a node of this run started (the runs.finished consumer finds the run by it). */
  agentRunIds: string[];
  /** One per agent run that finished: model, harness, usage and cost. */
  aiCalls: AiCall[];
  /** The findings pr-review classified for the review this run made (PR reviews only; replaced whole). */
  reviewFindings?: ReviewFinding[];
  /** The latest dispatch events (at most DISPATCH_KEPT), oldest first; `dispatchCount` counts them all. */
  dispatch: DispatchEvent[];
  dispatchCount: number;
  /** W3C trace headers of the run's trigger span (engine/runTrace.ts): its node runs are spans of that trace. */
  trace?: Record<string, string>;
  createdAt: Date;
  updatedAt: Date;
  /** When it reached a terminal status; null while live. */
  finishedAt: Date | null;
  /** When the sweeper looks at the live run next (pushed forward by every change); null while held. */
  checkAt: Date | null;
  /** Created by a trigger with `hold` and not released yet: `pending`, nothing of it runs, the sweeper leaves it. */
  held?: boolean;
  _outbox?: OutboxEntry[];
}

/** A durable timer of a waiting delay or await_event node (`timerId` of the core). */
export interface TimerDoc {
  _id: string;
  automationRunId: string;
  nodeId: string;
  attempt: number;
  kind: 'delay' | 'awaitTimeout';
  dueAt: Date;
}

/** An event of `POST /automations/events`, kept until it reached every live run of its user. */
export interface AutomationEventDoc {
  _id: string;
  userId: string;
  name: string;
  data: unknown;
  receivedAt: Date;
  /** True until it was delivered to every run of the user live when it arrived (the sweeper re-delivers). */
  pending: boolean;
}

export const AUTOMATIONS_ENGINE_INDEXES: readonly CollectionIndexes[] = [
  { collection: COLLECTIONS.automations, indexes: [{ key: { userId: 1, createdAt: -1, _id: -1 }, name: 'user_created' }] },
  { collection: COLLECTIONS.automationVersions, indexes: [{ key: { automationId: 1, versionNumber: 1 }, name: 'automation_version', unique: true }] },
  {
    collection: COLLECTIONS.automationRuns,
    indexes: [
      { key: { automationId: 1, createdAt: -1 }, name: 'automation_created' },
      { key: { automationId: 1, status: 1, finishedAt: -1 }, name: 'automation_status_finished' },
      { key: { userId: 1, 'trigger.idempotencyKey': 1 }, name: 'user_trigger_key', unique: true },
      { key: { agentRunIds: 1 }, name: 'agent_run' },
      { key: { status: 1, checkAt: 1 }, name: 'status_check_at' },
      { key: { userId: 1, status: 1, createdAt: 1 }, name: 'user_status_created' },
    ],
  },
  { collection: COLLECTIONS.timers, indexes: [{ key: { dueAt: 1 }, name: 'due_at' }] },
  { collection: COLLECTIONS.events, indexes: [{ key: { pending: 1, receivedAt: 1 }, name: 'pending_received' }] },
];
