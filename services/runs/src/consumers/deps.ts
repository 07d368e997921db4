import type { Logger } from '@ars/logger';
import type { RunSignalPublisher } from '@ars/run-signals';
import type { KnownSecrets } from '@ars/sanitize';
import type { RunEventStore } from '../store/runEvents.js';
import type { RunStore } from '../store/runs.js';

/** The deadline settings a queue notice restarts (RUN_START_TIMEOUT_MS, RUN_LOST_GRACE_MS). */
export interface ConsumerDeadlines {
  startTimeoutMs: number;
  lostGraceMs: number;
}

/** What the consumers work with. */
export interface ConsumerDeps {
  runs: RunStore;
  events: RunEventStore;
  deadlines: ConsumerDeadlines;
  logger: Logger;
  /** This service's own secret values (INTERNAL_TOKEN, MONGO_URL's password...): redacted from what it stores. */
  secrets: KnownSecrets;
  /** Announces each run a handled message changed, to the gateway's event streams (lossy; they poll as a safety net). */
  signals: RunSignalPublisher;
}
