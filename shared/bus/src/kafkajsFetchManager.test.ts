// kafkajs 2.2.4's fetch manager, as patched here (patches/kafkajs+2.2.4.patch, applied by
// patch-package at install). Unpatched, a stop() that came while start() was rebalancing its
// fetchers (the brokers changing as a cluster goes down) was followed by new fetchers; the runner,
// stopped, answers their fetch with [] at once, so they looped on resolved promises forever: a
// service at 100% CPU whose event loop never again saw a timer, a signal or its closed stdin
// (found as a sandboxes process outliving a SIGKILLed `npm start` in CI).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

interface FetchManager {
  start(): Promise<void>;
  stop(): Promise<void>;
}
type CreateFetchManager = (options: {
  logger: unknown;
  getNodeIds: () => number[];
  fetch: (nodeId: number) => Promise<unknown[]>;
  handler: (batch: unknown) => Promise<void>;
  concurrency?: number;
}) => FetchManager;

const createFetchManager = require('kafkajs/src/consumer/fetchManager.js') as CreateFetchManager;
const silent = { namespace: () => silent, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('a fetch manager stopped while it rebalances its fetchers makes no new ones (the kafkajs patch)', () => {
  test('start() ends, and fetch is not called again in a loop (unpatched, the loop never ends)', async () => {
    let nodeIds = [1, 2];
    let runnerRunning = true;
    let fetchCalls = 0;
    const manager = createFetchManager({
      logger: silent,
      getNodeIds: () => nodeIds,
      // As kafkajs's runner fetches, [] once it is not running (kafkajs answers at once; here after a
      // macrotask, so that the unpatched loop fails this test instead of starving jest); broker 2 is slow.
      fetch: async (nodeId) => {
        fetchCalls += 1;
        if (!runnerRunning) {
          await tick();
          return [];
        }
        if (nodeId === 2) await sleep(100);
        else await tick();
        return [];
      },
      handler: async () => undefined,
    });
    const started = manager.start();
    await tick();
    // Broker 2 leaves the cluster: fetcher 1's next fetch throws to rebalance, and the manager waits
    // for fetcher 2's slow fetch to end. Meanwhile the runner stops, and stops the manager.
    nodeIds = [1];
    await sleep(20);
    runnerRunning = false;
    const stopped = manager.stop();
    let deadline: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([started, stopped]),
      new Promise((_, reject) => {
        deadline = setTimeout(() => reject(new Error(`start() never ended: fetch called ${fetchCalls} times`)), 2_000);
      }),
    ]).finally(() => clearTimeout(deadline));
    const after = fetchCalls;
    await sleep(100);
    expect(fetchCalls).toBe(after);
  });
});
