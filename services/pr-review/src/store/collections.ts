import type { DeliveryApplied } from '@ars/catalog/client';
import type { CollectionIndexes } from '@ars/mongo';
import type { SourceHostProvider } from '@ars/source-host';
import type { StoredFinding } from '../domain/classifyFindings.js';

/** pr-review's collections (its own database only) and their documents. */
export const COLLECTIONS = {
  attempts: 'review_attempts',
  reviewAutomations: 'review_automations',
  deliveries: 'webhook_deliveries',
  processed: 'bus_processed_messages',
} as const;

/** What became of a GitHub delivery (kept so a redelivery of the same id is answered the same, and queues nothing twice). */
export type DeliveryOutcome =
  | { kind: 'ignored'; why: string }
  | { kind: 'queued'; attemptId: string }
  /** An installation, installation_repositories or repository delivery the catalog applied (`applied`: what it came to). */
  | { kind: 'applied'; applied: DeliveryApplied };

export interface DeliveryDoc {
  /** GitHub's `X-GitHub-Delivery`. */
  _id: string;
  event: string;
  /** Null while it is being handled. */
  outcome: DeliveryOutcome | null;
  receivedAt: Date;
}

/**
 * `queued`: the attempt exists, its automation run is held (deferred behind another attempt on the
 * same head) or not started yet; `running`: its automation run started, and until its report is on
 * the source host; then `completed` (findings reported), `failed` (the review run failed, or the
 * report could not be made) or `cancelled` (the review run was cancelled).
 */
export type AttemptStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/** What asked for the attempt: a pull request event, a check run re-requested on the host, the rerun route. */
export type AttemptTrigger = 'opened' | 'reopened' | 'synchronize' | 'rerequested' | 'rerun';

/** One review attempt of a pull request's head: a check run on the host, an automation run in the engine. */
export interface AttemptDoc {
  _id: string;
  /** The owner: every read and write is scoped to it. */
  userId: string;
  repoId: string;
  /** The catalog's installation (whose review automation runs). */
  installationId: number;
  provider: SourceHostProvider;
  repoFullName: string;
  /** The source host's installation: `account` and its own id (null on the local host). */
  hostInstallation: { account: string; externalId: number | null };
  prNumber: number;
  headSha: string;
  headRef: string;
  trigger: AttemptTrigger;
  status: AttemptStatus;
  /** Created deferred: its automation run was held until the blocking attempt ended. */
  deferred: boolean;
  /** The held automation run was released (or never held). */
  released: boolean;
  automationId: string;
  automationRunId: string | null;
  /** The review automation's published version the automation run executes. */
  versionId: string | null;
  /** Our check run on the host (its `external_id` is this attempt's id). */
  checkRunId: number | null;
  /** How the automation run ended (set by the automations.dispatch consumer): what the report reads. */
  runEnded: { status: 'success' | 'failed' | 'cancelled'; error: string | null } | null;
  /** When the report is due next (null: none due); moved forward while one is being made, and after a failure by its Retry-After. */
  reportDueAt: Date | null;
  reportTries: number;
  /** The last failure of the report, or of the attempt (sanitized). */
  error: string | null;
  /** Every finding of the pull request with its state as this attempt left them (the next attempt's previous ones). */
  findings: StoredFinding[];
  /** Findings whose review comment the host refused (the line is outside the diff): their fingerprints. */
  refused: string[];
  createdAt: Date;
  updatedAt: Date;
  endedAt: Date | null;
}

/** An installation's review automation (one per user and installation), created on first use. */
export interface ReviewAutomationDoc {
  /** `<userId>:<installationId>`. */
  _id: string;
  userId: string;
  installationId: number;
  /** Null while the claimer creates it. */
  automationId: string | null;
  claimedAt: Date;
}

export const PR_REVIEW_INDEXES: readonly CollectionIndexes[] = [
  {
    collection: COLLECTIONS.attempts,
    indexes: [
      { key: { automationRunId: 1 }, name: 'by_automation_run', sparse: true },
      { key: { repoId: 1, prNumber: 1, headSha: 1, status: 1, createdAt: 1 }, name: 'by_head' },
      { key: { repoId: 1, prNumber: 1, endedAt: -1 }, name: 'by_pull_request_ended' },
      { key: { reportDueAt: 1 }, name: 'by_report_due', sparse: true },
      { key: { status: 1, deferred: 1, released: 1 }, name: 'by_held' },
    ],
  },
  // Deliveries are kept 30 days: GitHub redelivers on request for about as long.
  { collection: COLLECTIONS.deliveries, indexes: [{ key: { receivedAt: 1 }, name: 'expire', expireAfterSeconds: 30 * 24 * 3600 }] },
];
