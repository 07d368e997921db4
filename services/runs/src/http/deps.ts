import type { CatalogClient } from '@ars/catalog/client';
import type { SandboxesClient } from '@ars/sandboxes/client';
import type { Logger } from '@ars/logger';
import type { FollowUpStore } from '../store/followUps.js';
import type { IdempotencyStore } from '../store/idempotency.js';
import type { RunEventStore } from '../store/runEvents.js';
import type { RunStore } from '../store/runs.js';

/** The time rules of new runs (README, Configuration). */
export interface RunSettings {
  /** RUN_TIMEOUT_MS: the harness limit sent to sandboxes. */
  timeoutMs: number;
  /** RUN_START_TIMEOUT_MS: `startBy` = createdAt + this. */
  startTimeoutMs: number;
  /** RUN_LOST_GRACE_MS: `lostBy` = createdAt + timeoutMs + this. */
  lostGraceMs: number;
}

/** What the routes work with. */
export interface RunsDeps {
  runs: RunStore;
  events: RunEventStore;
  idempotency: IdempotencyStore;
  /** Conversation and workspace session bindings. */
  followUps: FollowUpStore;
  catalog: CatalogClient;
  sandboxes: SandboxesClient;
  settings: RunSettings;
  /** Publish outbox messages now instead of at the relay's next poll. */
  kickOutbox: () => void;
  logger: Logger;
}
