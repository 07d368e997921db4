// kafkajs's request queue, mended so that an idle connection costs nothing (see kafkaClient.ts).
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startIsolatedKafka, waitFor, type KafkaMock } from '@ars/testenv';
import { createBus } from './bus.js';
import { KAFKAJS_VERSION_MENDED, stopIdleRequestQueueSpin } from './kafkaClient.js';

const require = createRequire(import.meta.url);

interface RequestQueue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  push(request: unknown): void;
  checkPendingRequests(): void;
}
type RequestQueueClass = (new (options: Record<string, unknown>) => RequestQueue) & { prototype: RequestQueue };

const RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as RequestQueueClass;
const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function queue(): RequestQueue {
  return new RequestQueue({ maxInFlightRequests: 1, requestTimeout: 1_000, enforceRequestTimeout: false, clientId: 'test', broker: 'b:1', logger: silent });
}

/** A request that expects no answer, as kafkajs's connection pushes it; `sent` records that it went out. */
function fireAndForget(correlationId: number, sent: number[]) {
  const entry = { correlationId, apiKey: 0, apiName: 'Produce', apiVersion: 0, resolve: () => undefined, reject: () => undefined };
  return { entry, expectResponse: false, requestTimeout: 1_000, sendRequest: () => sent.push(correlationId) };
}

beforeAll(() => stopIdleRequestQueueSpin());

describe('the mend is for the kafkajs version installed', () => {
  test(`kafkajs is ${KAFKAJS_VERSION_MENDED}: on an upgrade, check tulios/kafkajs#1556 and drop the mend if fixed`, () => {
    expect((require('kafkajs/package.json') as { version: string }).version).toBe(KAFKAJS_VERSION_MENDED);
  });
});

describe('an idle request queue schedules no check', () => {
  test('with nothing pending and no throttle, checking the queue leaves no timer behind', () => {
    const idle = queue();
    idle.checkPendingRequests();
    expect(idle.throttleCheckTimeoutId === null).toBe(true);
  });

  test('a request sent at once leaves no timer behind', () => {
    const sent: number[] = [];
    const idle = queue();
    idle.push(fireAndForget(1, sent));
    expect(sent).toEqual([1]);
    expect(idle.throttleCheckTimeoutId === null).toBe(true);
  });
});

describe('a request that waits is still sent', () => {
  test('a request held back by a broker throttle goes out when the throttle ends, and then no timer is left', async () => {
    const sent: number[] = [];
    const throttled = queue();
    throttled.throttledUntil = Date.now() + 50;
    throttled.push(fireAndForget(7, sent));
    expect(sent).toEqual([]);
    expect(throttled.throttleCheckTimeoutId === null).toBe(false);
    await waitFor('the throttled request to be sent', () => sent.length === 1, { timeoutMs: 5_000, intervalMs: 5 });
    expect(sent).toEqual([7]);
    expect(throttled.pending).toEqual([]);
    expect(throttled.throttleCheckTimeoutId === null).toBe(true);
  });
});

describe('an idle bus costs nothing', () => {
  let mock: KafkaMock;
  beforeAll(async () => {
    mock = await startIsolatedKafka({ brokers: 3, topics: [] });
  });
  afterAll(() => mock?.close());

  test('a connected, idle bus checks its request queues only when a request is answered (unmended: about a thousand times a second per connection)', async () => {
    const bus = createBus({ clientId: 'idle', brokers: mock.brokers });
    try {
      await bus.connect();
      await expect(bus.isReady()).resolves.toBe(true);
      const original = RequestQueue.prototype.checkPendingRequests;
      let checks = 0;
      RequestQueue.prototype.checkPendingRequests = function counted(this: RequestQueue) {
        checks += 1;
        original.call(this);
      };
      try {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      } finally {
        RequestQueue.prototype.checkPendingRequests = original;
      }
      expect(checks).toBeLessThan(10);
    } finally {
      await bus.disconnect();
    }
  });
});
