// When the outbox relay's passes run: one at a time; the next at once when kicked meanwhile or
// when the last one filled its batch (more may be waiting), else after the poll interval; always
// outside any trace.
import { ROOT_CONTEXT, context } from '@opentelemetry/api';
import { errorFields, type BusLogger } from './logger.js';

export interface PassSchedulerSettings {
  /** Pause between passes when idle. */
  pollIntervalMs: number;
  /** A pass that published this many (a full batch) is followed by the next at once. */
  batchSize: number;
  logger: BusLogger;
}

export class PassScheduler {
  private stopping = false;
  private timer: NodeJS.Timeout | undefined;
  /** The last pass asked for: each pass starts after the one before it has ended. */
  private tail: Promise<unknown> = Promise.resolve();
  private kicked = false;

  /** `pass` resolves with the number of messages it published. */
  constructor(
    private readonly pass: () => Promise<number>,
    private readonly settings: PassSchedulerSettings,
  ) {}

  get stopped(): boolean {
    return this.stopping;
  }

  /** Starts the loop: the first pass at once. */
  start(): void {
    this.schedule(0);
  }

  /** A pass as soon as possible (after a local write). */
  kick(): void {
    this.kicked = true;
    this.schedule(0);
  }

  /** One pass now, after the running one: passes never overlap. */
  runOnce(): Promise<number> {
    // Chained, not awaited in a loop: two callers waiting for the same pass would both start theirs.
    const run = this.tail.catch(() => undefined).then(() => this.pass());
    this.tail = run;
    return run;
  }

  /** No pass after this one; resolves once the running pass ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.settled();
  }

  /** Resolves once every pass asked for so far has ended. */
  private async settled(): Promise<void> {
    let last: Promise<unknown>;
    do {
      last = this.tail;
      await last.catch(() => undefined);
    } while (last !== this.tail);
  }

  private schedule(delay: number): void {
    if (this.stopping) return;
    clearTimeout(this.timer);
    // Outside any trace: a kick comes from a request's or a message's handler, and the timer would
    // otherwise carry that trace into every later pass. Each entry is sent in its own trace (its headers).
    this.timer = setTimeout(() => context.with(ROOT_CONTEXT, () => void this.loop()), delay);
  }

  private async loop(): Promise<void> {
    if (this.stopping) return;
    this.kicked = false;
    let published = 0;
    try {
      published = await this.runOnce();
    } catch (error) {
      this.settings.logger.warn({ ...errorFields(error) }, 'outbox pass failed');
    }
    this.schedule(this.kicked || published >= this.settings.batchSize ? 0 : this.settings.pollIntervalMs);
  }
}
