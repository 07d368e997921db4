import type { OutgoingMessage, RunAgentEventData } from '@ars/bus';

/** How many events one send carries, and how many may wait before the harness is slowed down. */
export const RUN_EVENT_BATCHING = { maxBatch: 500, maxQueued: 2_000 } as const;

/**
 * A run's events on their way to `runs.agent-events`, in order. `add` queues an event and returns
 * at once (it waits only while `maxQueued` are waiting: the harness is slowed down, nothing is
 * dropped); one send at a time carries every event queued meanwhile, at most `maxBatch`. So an
 * event alone leaves at once, and a chatty harness costs one Kafka request per batch, not per event.
 * A send that fails (past its retries) fails the publisher: the next `add`, and `drain`, reject with it.
 */
export class RunEventPublisher {
  private queue: OutgoingMessage<RunAgentEventData>[] = [];
  private sending: Promise<void> | undefined;
  private failure: { error: unknown } | undefined;
  private sent = 0;
  private readonly waitingForRoom = new Set<() => void>();

  constructor(
    /** Sends the messages in one request, retrying; rejects when they could not be sent. */
    private readonly send: (messages: OutgoingMessage<RunAgentEventData>[]) => Promise<void>,
    /** After each send, with how many events are sent in all. */
    private readonly onSent: (sent: number) => Promise<void>,
    private readonly limits: { maxBatch: number; maxQueued: number } = RUN_EVENT_BATCHING,
  ) {}

  /** Events sent so far (every one before them too). */
  get published(): number {
    return this.sent;
  }

  async add(message: OutgoingMessage<RunAgentEventData>): Promise<void> {
    this.throwIfFailed();
    this.queue.push(message);
    this.sending ??= this.sendQueued();
    while (this.queue.length >= this.limits.maxQueued && !this.failure) {
      await new Promise<void>((resolve) => this.waitingForRoom.add(resolve));
    }
    this.throwIfFailed();
  }

  /** Resolves once every event added is sent; rejects with the failure of a send. */
  async drain(): Promise<void> {
    while (this.sending) await this.sending;
    this.throwIfFailed();
  }

  private async sendQueued(): Promise<void> {
    try {
      while (this.queue.length > 0 && !this.failure) {
        const batch = this.queue.splice(0, this.limits.maxBatch);
        this.wakeWaiting();
        await this.send(batch);
        this.sent += batch.length;
        await this.onSent(this.sent);
      }
    } catch (error) {
      this.failure = { error };
      this.wakeWaiting();
    } finally {
      this.sending = undefined;
    }
  }

  private wakeWaiting(): void {
    for (const wake of this.waitingForRoom) wake();
    this.waitingForRoom.clear();
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }
}
