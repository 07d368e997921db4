import { Redis } from 'ioredis';
import type { Logger } from '@ars/logger';

/**
 * The Redis channel a run's changes are announced on. An announcement carries nothing: whoever wakes
 * reads the run through its owner (runs), with the reader's own scope, so a signal can neither leak
 * another tenant's data nor be trusted for any.
 */
export function runChannel(runId: string): string {
  return `ars:run-changed:${runId}`;
}

/** How long a publish or a connection attempt may take: announcements are worth little once late. */
const REDIS_TIMEOUT_MS = 1_000;

const reconnectDelay = (attempt: number): number => Math.min(attempt * 200, 2_000);

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export interface RunSignalPublisher {
  /**
   * Announces that the run changed (an event stored, its status moved). Never waits and never throws:
   * Redis pub/sub is lossy by design, and a lost announcement costs a watcher one safety-net read.
   */
  changed(runId: string): void;
  close(): Promise<void>;
}

/** Without REDIS_URL nothing is announced: watchers read on their short poll, as before signals. */
const SILENT_PUBLISHER: RunSignalPublisher = { changed: () => undefined, close: async () => undefined };

export function createRunSignalPublisher(url: string | undefined, logger: Logger): RunSignalPublisher {
  if (!url) return SILENT_PUBLISHER;
  // No offline queue: an announcement made while Redis is away fails at once instead of arriving late.
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_TIMEOUT_MS,
    connectTimeout: REDIS_TIMEOUT_MS,
    retryStrategy: reconnectDelay,
  });
  redis.on('error', () => undefined); // reconnects on its own; failures are logged once per outage below
  let failing = false;
  return {
    changed(runId) {
      redis.publish(runChannel(runId), '').then(
        () => {
          if (!failing) return;
          failing = false;
          logger.info('run signals: announcing again');
        },
        (error: unknown) => {
          if (failing) return;
          failing = true;
          logger.warn({ err: errorText(error) }, 'run signals: an announcement failed; event streams read on their poll until Redis is back');
        },
      );
    },
    async close() {
      redis.disconnect();
    },
  };
}

/** One reader's wait on one run (an event stream). */
export interface RunWatch {
  /**
   * True while announcements of this run reach this watch (its channel subscribed on a live
   * connection): the reader may then wait long between reads; otherwise it polls as without signals.
   */
  readonly live: boolean;
  /**
   * Resolves at once if the run was announced (or the watch became live) since the last call, else on
   * the next announcement, after `maxWaitMs`, or when `stopped` aborts, whichever comes first.
   */
  changeOrTimeout(maxWaitMs: number, stopped?: AbortSignal): Promise<void>;
  close(): void;
}

export interface RunSignalSubscriber {
  watch(runId: string): RunWatch;
  close(): Promise<void>;
}

class Watch implements RunWatch {
  private announced = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly isLive: () => boolean,
    private readonly onClose: (watch: Watch) => void,
  ) {}

  get live(): boolean {
    return this.isLive();
  }

  /** The run changed, or announcements may have been missed (subscribed, reconnected): read again. */
  poke(): void {
    this.announced = true;
    this.wake?.();
  }

  changeOrTimeout(maxWaitMs: number, stopped?: AbortSignal): Promise<void> {
    if (this.announced || stopped?.aborted) {
      this.announced = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        stopped?.removeEventListener('abort', done);
        this.wake = undefined;
        // The read that follows covers whatever was announced until now.
        this.announced = false;
        resolve();
      };
      const timer = setTimeout(done, maxWaitMs);
      stopped?.addEventListener('abort', done, { once: true });
      this.wake = done;
    });
  }

  close(): void {
    this.wake?.();
    this.onClose(this);
  }
}

interface Channel {
  watches: Set<Watch>;
  subscribed: boolean;
}

/** Without REDIS_URL no watch is ever live: readers poll. */
const DEAF_SUBSCRIBER: RunSignalSubscriber = {
  watch: () =>
    new Watch(
      () => false,
      () => undefined,
    ),
  close: async () => undefined,
};

/**
 * One Redis connection in subscriber mode for every watch of this process; a run's channel is
 * subscribed while at least one watch of it is open. A watch is poked when its subscription is
 * confirmed (at once if it already was) and again once it is renewed after a reconnection
 * (announcements may have been missed meanwhile), so its reader reads once more and nothing falls
 * between a read and a subscription.
 */
export function createRunSignalSubscriber(url: string | undefined, logger: Logger, options: { connectionName?: string } = {}): RunSignalSubscriber {
  if (!url) return DEAF_SUBSCRIBER;
  // Subscriptions are renewed here after each reconnection, not by ioredis, so that a watch is poked
  // once its channel is subscribed again, not before.
  const redis = new Redis(url, {
    autoResubscribe: false,
    connectTimeout: REDIS_TIMEOUT_MS,
    retryStrategy: reconnectDelay,
    // What `CLIENT LIST` shows an operator for this connection.
    ...(options.connectionName ? { connectionName: options.connectionName } : {}),
  });
  const channels = new Map<string, Channel>();
  let connected = false;
  let warned = false;

  redis.on('error', (error: unknown) => {
    if (warned) return;
    warned = true;
    logger.warn({ err: errorText(error) }, 'run signals: Redis unreachable; event streams read on their poll until it is back');
  });
  redis.on('ready', () => {
    connected = true;
    warned = false;
    // Subscribed again, each watch is poked: whatever was announced while away is read then.
    for (const [name, channel] of channels) if (!channel.subscribed) subscribe(name, channel);
  });
  redis.on('close', () => {
    connected = false;
    for (const channel of channels.values()) channel.subscribed = false;
  });
  redis.on('message', (name: string) => {
    const channel = channels.get(name);
    if (channel) for (const watch of channel.watches) watch.poke();
  });

  const subscribe = (name: string, channel: Channel): void => {
    redis.subscribe(name).then(
      () => {
        if (channels.get(name) !== channel) return;
        channel.subscribed = true;
        for (const watch of channel.watches) watch.poke();
      },
      (error: unknown) => logger.debug({ err: errorText(error), channel: name }, 'run signals: subscribe failed; the stream polls'),
    );
  };

  return {
    watch(runId) {
      const name = runChannel(runId);
      let channel = channels.get(name);
      if (!channel) {
        channel = { watches: new Set(), subscribed: false };
        channels.set(name, channel);
        subscribe(name, channel);
      }
      const own = channel;
      const watch = new Watch(
        () => connected && own.subscribed,
        (closed) => {
          own.watches.delete(closed);
          if (own.watches.size > 0 || channels.get(name) !== own) return;
          channels.delete(name);
          redis.unsubscribe(name).catch(() => undefined);
        },
      );
      own.watches.add(watch);
      // Its channel already subscribed: the reader's first read is covered, and its first wait
      // returns at once all the same, as for a watch that had to wait for its subscription.
      if (own.subscribed) watch.poke();
      return watch;
    },
    async close() {
      for (const channel of channels.values()) for (const watch of channel.watches) watch.poke();
      channels.clear();
      redis.disconnect();
    },
  };
}
