import { setTimeout as sleep } from 'node:timers/promises';
import { isAppError } from '@ars/errors';

export interface PeerOutageOptions {
  /** How long a peer may stay unavailable before its SERVICE_UNAVAILABLE is the answer. */
  withinMs: number;
  /** Aborting stops the waiting at once; the last error is thrown. */
  signal?: AbortSignal;
  /** The first wait; each next one doubles, up to `maxDelayMs`. */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * `call`, again while it fails with SERVICE_UNAVAILABLE (the peer down, too slow, or not ready), for at
 * most `withinMs`: work no client waits on (a run being started, a sandbox being provisioned) rides
 * out a peer's rollout or restart instead of failing for it. Any other failure is thrown at once.
 */
export async function waitingOutPeerOutage<T>(call: () => Promise<T>, options: PeerOutageOptions): Promise<T> {
  const giveUpAt = Date.now() + options.withinMs;
  let delay = options.firstDelayMs ?? 250;
  const maxDelay = options.maxDelayMs ?? 2_000;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      const unavailable = isAppError(error) && error.code === 'SERVICE_UNAVAILABLE';
      if (!unavailable || options.signal?.aborted || Date.now() + delay > giveUpAt) throw error;
      try {
        await sleep(delay, undefined, { signal: options.signal });
      } catch {
        throw error;
      }
      delay = Math.min(delay * 2, maxDelay);
    }
  }
}
