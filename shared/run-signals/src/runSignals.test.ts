// Against the test infrastructure's Redis: what a watch promises its reader (an event stream), and what
// it costs when announcements are lost. No clock is asserted beyond "before the wait ran out".
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createLogger } from '@ars/logger';
import { testInfrastructure, waitFor } from '@ars/testenv';
import { createRunSignalPublisher, createRunSignalSubscriber, runChannel, type RunSignalPublisher, type RunSignalSubscriber, type RunWatch } from './index.js';

const logger = createLogger({ service: 'run-signals-test', level: 'silent' });
/** Longer than any test here: a wait that returns before it did not time out. */
const NEVER_MS = 60_000;

let redisUrl: string;
let admin: Redis;
let publisher: RunSignalPublisher;
let subscriber: RunSignalSubscriber;
const subscriberName = `ars-run-signals-test-${randomUUID().slice(0, 8)}`;

beforeAll(() => {
  redisUrl = testInfrastructure().redisUrl;
  admin = new Redis(redisUrl);
  publisher = createRunSignalPublisher(redisUrl, logger);
  subscriber = createRunSignalSubscriber(redisUrl, logger, { connectionName: subscriberName });
});

afterAll(async () => {
  await Promise.all([publisher.close(), subscriber.close()]);
  admin.disconnect();
});

const newRunId = () => `run_${randomUUID().replace(/-/g, '')}`;

/** A watch once its subscription is confirmed, its first poke (the confirmation's) taken. */
async function liveWatch(runId: string): Promise<RunWatch> {
  const watch = subscriber.watch(runId);
  await waitFor('the watch to be live', () => watch.live, 10_000);
  await watch.changeOrTimeout(NEVER_MS);
  return watch;
}

/** Whether `changeOrTimeout(NEVER_MS)` resolved before `withinMs` (an announcement woke it) or not. */
async function wokenWithin(watch: RunWatch, withinMs: number): Promise<boolean> {
  const stop = new AbortController();
  let woken = false;
  const waiting = watch.changeOrTimeout(NEVER_MS, stop.signal).then(() => (woken = !stop.signal.aborted));
  await Promise.race([waiting, new Promise((resolve) => setTimeout(resolve, withinMs))]);
  stop.abort();
  await waiting;
  return woken;
}

describe('a watch wakes when its own run is announced, and not for another run', () => {
  test('an announcement of the run wakes a waiting watch; one of another run does not', async () => {
    const runId = newRunId();
    const watch = await liveWatch(runId);
    const other = await liveWatch(newRunId());
    const woken = wokenWithin(watch, 10_000);
    const otherWoken = wokenWithin(other, 1_500);
    publisher.changed(runId);
    expect(await woken).toBe(true);
    expect(await otherWoken).toBe(false);
    watch.close();
    other.close();
  });

  test('an announcement made while nobody waited is kept for the next wait: it returns at once', async () => {
    const runId = newRunId();
    const idle = await liveWatch(runId);
    // A second watch of the run, waiting, says when the announcement has reached this process.
    const witness = await liveWatch(runId);
    const arrived = wokenWithin(witness, 10_000);
    publisher.changed(runId);
    expect(await arrived).toBe(true);
    const started = Date.now();
    await idle.changeOrTimeout(NEVER_MS);
    expect(Date.now() - started).toBeLessThan(NEVER_MS);
    idle.close();
    witness.close();
  });

  test('every watch of the run wakes, in the same process', async () => {
    const runId = newRunId();
    const [a, b] = [await liveWatch(runId), await liveWatch(runId)];
    const woken = Promise.all([wokenWithin(a, 10_000), wokenWithin(b, 10_000)]);
    publisher.changed(runId);
    expect(await woken).toEqual([true, true]);
    a.close();
    b.close();
  });
});

describe('nothing falls between a read and the subscription: the watch is poked once it is live', () => {
  test('a new watch is not live until subscribed, then its first wait returns at once', async () => {
    const watch = subscriber.watch(newRunId());
    expect(watch.live).toBe(false);
    await waitFor('the watch to be live', () => watch.live, 10_000);
    expect(await wokenWithin(watch, 10_000)).toBe(true);
    watch.close();
  });
});

describe('a lost announcement costs the reader its wait, no more', () => {
  test('with no announcement the wait ends after maxWaitMs', async () => {
    const watch = await liveWatch(newRunId());
    const started = Date.now();
    await watch.changeOrTimeout(300);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    watch.close();
  });

  test('an aborted wait returns at once', async () => {
    const watch = await liveWatch(newRunId());
    const stop = new AbortController();
    const waiting = watch.changeOrTimeout(NEVER_MS, stop.signal);
    stop.abort();
    await waiting;
    watch.close();
  });
});

describe('after Redis drops the connection the watch is live again and poked (what was announced meanwhile is read)', () => {
  test('CLIENT KILL of the subscriber: not live, then live again and woken, then announcements wake it as before', async () => {
    const runId = newRunId();
    const watch = await liveWatch(runId);
    const waiting = wokenWithin(watch, 20_000);
    // Only this test's subscriber (other suites' gateways share this Redis), found by its name.
    const clients = String(await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub'));
    const id = clients
      .split('\n')
      .find((line) => line.includes(` name=${subscriberName} `))
      ?.match(/\bid=(\d+)/)?.[1];
    expect(id).toBeDefined();
    expect(Number(await admin.call('CLIENT', 'KILL', 'ID', id ?? ''))).toBe(1);
    expect(await waiting).toBe(true);
    await waitFor('the watch to be live again', () => watch.live, 20_000);
    const woken = wokenWithin(watch, 10_000);
    publisher.changed(runId);
    expect(await woken).toBe(true);
    watch.close();
  });
});

describe('a run’s channel is subscribed while a watch of it is open, and only then', () => {
  test('PUBSUB NUMSUB counts the subscription while watched and none once the last watch closed', async () => {
    const runId = newRunId();
    const numsub = async () => Number(((await admin.pubsub('NUMSUB', runChannel(runId))) as [string, number])[1]);
    const [a, b] = [await liveWatch(runId), await liveWatch(runId)];
    expect(await numsub()).toBe(1);
    a.close();
    expect(await numsub()).toBe(1);
    b.close();
    await waitFor('the channel unsubscribed', async () => (await numsub()) === 0, 10_000);
  });
});

describe('without REDIS_URL: streams poll as before signals', () => {
  test('a watch is never live, and the publisher announces nothing and never throws', async () => {
    const deaf = createRunSignalSubscriber(undefined, logger);
    const watch = deaf.watch(newRunId());
    expect(watch.live).toBe(false);
    const started = Date.now();
    await watch.changeOrTimeout(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    watch.close();
    await deaf.close();
    const silent = createRunSignalPublisher(undefined, logger);
    expect(() => silent.changed(newRunId())).not.toThrow();
    await silent.close();
  });

  test('a publisher whose Redis is unreachable never throws', async () => {
    const unreachable = createRunSignalPublisher('redis://127.0.0.1:1', logger);
    for (let i = 0; i < 5; i += 1) expect(() => unreachable.changed(newRunId())).not.toThrow();
    await unreachable.close();
  });
});
