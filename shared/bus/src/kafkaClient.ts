import { createRequire } from 'node:module';
import { Kafka, type KafkaConfig } from 'kafkajs';

/**
 * The kafkajs version whose request queue `stopIdleRequestQueueSpin` mends. Upstream has not fixed it
 * (tulios/kafkajs#1556, #1704; fixes proposed in #1667 and #1768, unmerged): on an upgrade, check
 * whether the new version still spins and drop the mend if not (its test says so).
 */
export const KAFKAJS_VERSION_MENDED = '2.2.4';

/** The part of kafkajs's internal RequestQueue (src/network/requestQueue) the mend touches. */
interface RequestQueueInternals {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

interface RequestQueueClass {
  prototype: RequestQueueInternals;
}

// kafkajs's own interval for a throttled request's next check (CHECK_PENDING_REQUESTS_INTERVAL).
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;
const require = createRequire(import.meta.url);
let mended = false;

/**
 * kafkajs 2.2.4 checks every connection's request queue in a loop of 1 ms timers for as long as the
 * connection is open: with nothing pending and no broker throttle, `throttledUntil - Date.now()` is
 * negative, so the next check is set for "now" again and again. Each idle service spent most of its CPU
 * there (profiled: about 60 % of an idle service's samples), and a machine running several systems spent
 * a good part of a core on it. The mend keeps kafkajs's behaviour wherever something waits: a pending
 * request is checked again after the throttle or kafkajs's 10 ms; with nothing pending and no throttle no
 * check is scheduled, as `push` schedules one when a request has to wait and every answered or timed-out
 * request checks the queue again.
 */
export function stopIdleRequestQueueSpin(): void {
  if (mended) return;
  const { version } = require('kafkajs/package.json') as { version: string };
  if (version !== KAFKAJS_VERSION_MENDED) return;
  const RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as RequestQueueClass;
  RequestQueue.prototype.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(this: RequestQueueInternals) {
    if (this.throttleCheckTimeoutId) return;
    const untilUnthrottled = this.throttledUntil - Date.now();
    if (this.pending.length === 0 && untilUnthrottled <= 0) return;
    const delay = untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL_MS;
    this.throttleCheckTimeoutId = setTimeout(() => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    }, delay);
  };
  mended = true;
}

/** The one way this codebase makes a kafkajs client: with the idle request queue mended. */
export function createKafkaClient(config: KafkaConfig): Kafka {
  stopIdleRequestQueueSpin();
  return new Kafka(config);
}
