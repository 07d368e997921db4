import type { BusLogger } from './logger.js';

/** Where one record's handling stands across its deliveries (it is fetched again after each hold). */
export interface RecordProgress {
  attempt: number;
  failures: number;
  infraRetries: number;
  warnings: BoundedWarnings;
  /** The handler succeeded: only the processed record is left. */
  handled: boolean;
  /** The message proved poison: only its dead-letter publish is left. */
  poison?: { error: unknown; attempts: number };
}

export interface BoundedWarnings {
  warn(fields: Record<string, unknown>, message: string): void;
  recovered(fields: Record<string, unknown>, message: string): void;
}

/**
 * Warnings of one retry loop at a bounded rate: the first at once, then at most one per
 * `intervalMs`, each saying how many were held back. `recovered` says so once it worked.
 */
export function boundedWarnings(logger: BusLogger, intervalMs: number): BoundedWarnings {
  let last = Number.NEGATIVE_INFINITY;
  let heldBack = 0;
  let warned = false;
  const started = Date.now();
  return {
    warn(fields, message) {
      const now = Date.now();
      if (now - last < intervalMs) {
        heldBack++;
        return;
      }
      logger.warn({ ...fields, heldBackWarnings: heldBack, waitingMs: now - started }, message);
      last = now;
      heldBack = 0;
      warned = true;
    },
    recovered(fields, message) {
      if (warned) logger.info({ ...fields, waitedMs: Date.now() - started }, message);
    },
  };
}

/** Each held record's progress, by `topic/partition/offset`, until the record is done with. */
export class RecordProgressBook {
  private readonly entries = new Map<string, RecordProgress>();

  constructor(
    private readonly logger: BusLogger,
    private readonly retryLogIntervalMs: number,
  ) {}

  /** The record's progress, started afresh on its first delivery. */
  of(topic: string, partition: number, offset: string): RecordProgress {
    const id = `${topic}/${partition}/${offset}`;
    let entry = this.entries.get(id);
    if (!entry) {
      entry = { attempt: 0, failures: 0, infraRetries: 0, warnings: boundedWarnings(this.logger, this.retryLogIntervalMs), handled: false };
      this.entries.set(id, entry);
    }
    return entry;
  }

  /** True when the record was delivered before and not done with (held, retried). */
  has(topic: string, partition: number, offset: string): boolean {
    return this.entries.has(`${topic}/${partition}/${offset}`);
  }

  forget(topic: string, partition: number, offset: string): void {
    this.entries.delete(`${topic}/${partition}/${offset}`);
  }
}
