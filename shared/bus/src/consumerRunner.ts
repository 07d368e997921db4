import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import { errorFields, type BusLogger } from './logger.js';
import type { StopSignal } from './stopSignal.js';

/** How the runner's kafkajs consumers join and fetch (from ConsumeOptions). */
export interface RunnerOptions {
  groupId: string;
  topics: string[];
  fromBeginning: boolean;
  partitionsConsumedConcurrently: number;
  fetchMaxWaitMs: number;
  session: { sessionTimeoutMs?: number; rebalanceTimeoutMs?: number; heartbeatIntervalMs?: number };
}

/**
 * Owns the kafkajs consumer of a group member for its whole life: creates it, launches it (connect,
 * subscribe, run with manual commits), replaces it when kafkajs gives up on it, stops it. kafkajs
 * gives up on errors it deems fatal (e.g. INVALID_REQUEST, which librdkafka's mock answers to a
 * SyncGroup racing a rebalance): a member that stayed down would hold its partitions' messages back
 * forever, so a new kafkajs consumer joins in its place, with backoff (0.5 s doubling to 30 s).
 */
export class ConsumerRunner {
  /** The kafkajs consumer of the moment: replaced when one crashes for good (see relaunch). */
  private consumer: Consumer | undefined;
  private launching: Promise<void> | undefined;
  private relaunchTimer: NodeJS.Timeout | undefined;
  private relaunches = 0;
  private running = false;
  private currentAssignment: Record<string, number[]> = {};
  private resolveJoined!: () => void;
  readonly joined = new Promise<void>((resolve) => (this.resolveJoined = resolve));

  constructor(
    private readonly kafka: Kafka,
    private readonly options: RunnerOptions,
    private readonly eachBatch: (payload: EachBatchPayload) => Promise<void>,
    private readonly logger: BusLogger,
    private readonly stop: StopSignal,
  ) {}

  get isRunning(): boolean {
    return this.running && !this.stop.stopping;
  }

  get assignment(): Record<string, number[]> {
    return this.currentAssignment;
  }

  /** Connects, subscribes and runs a new kafkajs consumer; resolves once it joined the group. */
  async launch(): Promise<void> {
    const { consumer: next, crashed } = this.create();
    this.consumer = next;
    await next.connect();
    await next.subscribe({ topics: this.options.topics, fromBeginning: this.options.fromBeginning });
    await next.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently,
      eachBatch: this.eachBatch,
    });
    if (!crashed()) this.running = true;
  }

  /** After stop() was signalled: no relaunch, then the kafkajs consumer disconnects (in-flight batches finish, handled offsets committed). */
  async shutdown(): Promise<void> {
    clearTimeout(this.relaunchTimer);
    try {
      await this.launching?.catch(() => undefined);
      await this.consumer?.disconnect();
    } finally {
      this.running = false;
    }
  }

  private create(): { consumer: Consumer; crashed: () => boolean } {
    let crashed = false;
    const { session } = this.options;
    const created = this.kafka.consumer({
      groupId: this.options.groupId,
      sessionTimeout: session.sessionTimeoutMs ?? 30_000,
      rebalanceTimeout: session.rebalanceTimeoutMs ?? 60_000,
      heartbeatInterval: session.heartbeatIntervalMs ?? 3_000,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: this.options.fetchMaxWaitMs,
      retry: { retries: 10, initialRetryTime: 300, maxRetryTime: 10_000 },
    });
    created.on(created.events.GROUP_JOIN, (event) => {
      this.currentAssignment = { ...event.payload.memberAssignment };
      this.relaunches = 0;
      this.logger.info({ assignment: this.currentAssignment, leader: event.payload.isLeader }, 'joined consumer group');
      this.resolveJoined();
    });
    created.on(created.events.CRASH, (event) => {
      this.logger.error({ ...errorFields(event.payload.error), restart: event.payload.restart }, 'consumer crashed');
      if (event.payload.restart) return; // kafkajs restarts it (retriable errors)
      crashed = true;
      this.running = false;
      this.relaunch();
    });
    return { consumer: created, crashed: () => crashed };
  }

  private relaunch(): void {
    if (this.stop.stopping || this.relaunchTimer) return;
    const delay = Math.min(30_000, 500 * 2 ** this.relaunches++);
    this.logger.warn({ delayMs: delay }, 'consumer stopped on an error: a new one joins the group');
    this.relaunchTimer = setTimeout(() => {
      this.relaunchTimer = undefined;
      if (this.stop.stopping) return;
      const old = this.consumer;
      this.launching = (async () => {
        await old?.disconnect().catch(() => undefined);
        if (!this.stop.stopping) await this.launch();
      })().catch((error: unknown) => {
        this.logger.error({ ...errorFields(error) }, 'consumer restart failed');
        this.running = false;
        this.relaunch();
      });
    }, delay);
  }
}
