import type { Logger } from '@ars/logger';
import type { RunEventStore } from '../store/runEvents.js';
import type { RunStore } from '../store/runs.js';

/** What the consumers work with. */
export interface ConsumerDeps {
  runs: RunStore;
  events: RunEventStore;
  logger: Logger;
}
