// The bus against the real broker (librdkafka's mock cluster over TCP), one cluster for the file.
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { context, trace } from '@opentelemetry/api';
import { Kafka, logLevel } from 'kafkajs';
import { AppError } from '@ars/errors';
import { startIsolatedKafka, waitFor, type KafkaMock } from '@ars/testenv';
import {
  createBus,
  memoryProcessedStore,
  NonRetryableError,
  type Bus,
  type BusConsumer,
  type BusMessage,
  type MessageContext,
  type RunRequestedData,
} from './index.js';
import { fastSession, memoryLogger } from './testing/helpers.js';
import { contextWithSpan, registerTestTracing } from './testing/otel.js';

const topicNames = ['roundtrip', 'trace', 'order', 'retry', 'nonretry', 'malformed', 'stop', 'dedupe', 'dlqretry'];
let mock: KafkaMock;
let bus: Bus;
const logger = memoryLogger();
const ownConsumers: BusConsumer[] = [];

type Seen = { message: BusMessage; context: MessageContext };
type Handler = (seen: Seen) => Promise<void>;

/**
 * One consumer group for the file, subscribed to every test topic (each group's first join waits the
 * mock's initial rebalance delay): each test registers what it does with its own topic's messages.
 */
const shared = { seen: new Map<string, Seen[]>(), handlers: new Map<string, Handler>() };
const processed = memoryProcessedStore();

beforeAll(async () => {
  mock = await startIsolatedKafka({
    brokers: 3,
    topics: topicNames.flatMap((name) => [
      { name: `bus.test.${name}`, partitions: 4 },
      { name: `bus.test.${name}.dlq`, partitions: 1 },
    ]),
  });
  bus = createBus({ brokers: mock.brokers, clientId: 'bus-test', logger, fetchMaxWaitMs: 100 });
  await bus.connect();
  const topics = topicNames.filter((name) => name !== 'stop').flatMap((name) => [`bus.test.${name}`, `bus.test.${name}.dlq`] as const);
  await bus.consume({
    groupId: 'bus-test-shared',
    topics,
    session: fastSession,
    maxAttempts: 3,
    backoffMs: { initial: 20, max: 100 },
    processed,
    partitionsConsumedConcurrently: 16,
    handle: async (message, context) => {
      const seen = { message, context };
      const list = shared.seen.get(context.topic) ?? [];
      list.push(seen);
      shared.seen.set(context.topic, list);
      await shared.handlers.get(context.topic)?.(seen);
    },
  });
});

afterEach(async () => {
  await Promise.all(ownConsumers.splice(0).map((c) => c.stop()));
});

afterAll(async () => {
  await bus?.disconnect();
  await mock?.close();
});

/** What the shared group handled from `topic` (live array), and what it does with each message. */
function collect(topic: `bus.test.${string}`, handle?: Handler): Seen[] {
  if (handle) shared.handlers.set(topic, handle);
  const list = shared.seen.get(topic) ?? [];
  shared.seen.set(topic, list);
  return list;
}

/** A consumer group of its own (for tests that stop one). */
async function ownGroup(topic: `bus.test.${string}`, groupId: string, handle?: Handler) {
  const seen: Seen[] = [];
  const consumer = await bus.consume({
    groupId,
    topics: [topic],
    session: fastSession,
    handle: async (message, context) => {
      seen.push({ message, context });
      await handle?.({ message, context });
    },
  });
  ownConsumers.push(consumer);
  return { seen, consumer };
}

describe('a message is {id, type, occurredAt, data} keyed by the aggregate id', () => {
  test('what publish sends is what the handler gets, with its key, partition and offset', async () => {
    const seen = collect('bus.test.roundtrip');
    const sent = await bus.publish('bus.test.roundtrip', { key: 'run-1', type: 'test.hello', data: { hello: 'world' } });
    expect(sent.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isNaN(Date.parse(sent.occurredAt))).toBe(false);
    await waitFor('the message', () => seen.length === 1, 30_000);
    expect(seen[0]!.message).toEqual(sent);
    expect(seen[0]!.context).toMatchObject({ topic: 'bus.test.roundtrip', key: 'run-1', attempt: 1, offset: '0', groupId: 'bus-test-shared' });
  });
});

describe('a message that fails validation is a programming error: never sent', () => {
  test('publish throws INTERNAL_ERROR naming the topic and the failing path', async () => {
    // The data type says harness is 'codex' | 'claude-code'; a cast gets 'nope' past the compiler.
    const data = {
      runId: 'run-1',
      userId: 'u',
      repoId: 'r',
      harness: 'nope',
      prompt: 'p',
      branch: { base: 'main', working: 'main', createBranch: false },
    } as unknown as RunRequestedData;
    const attempt = bus.publish('runs.requested', { key: 'run-1', type: 'run.requested', data });
    await expect(attempt).rejects.toBeInstanceOf(AppError);
    await expect(attempt).rejects.toMatchObject({ code: 'INTERNAL_ERROR', message: expect.stringMatching(/runs\.requested.*\/data\/harness/) });
  });
  test('an empty key, a wrong type and a non-ISO occurredAt are refused', async () => {
    await expect(bus.publish('bus.test.roundtrip', { key: '', type: 't', data: {} })).rejects.toMatchObject({ message: expect.stringContaining('(key)') });
    await expect(bus.publish('runs.finished', { key: 'r', type: 'run.started', data: { runId: 'r', status: 'success', error: null } })).rejects.toMatchObject({
      message: expect.stringContaining('/type'),
    });
    await expect(bus.publish('bus.test.roundtrip', { key: 'k', type: 't', data: {}, occurredAt: 'yesterday' })).rejects.toMatchObject({
      message: expect.stringContaining('/occurredAt'),
    });
  });
});

describe('W3C traceparent travels in the headers; the remote context is the parent of the handler', () => {
  test('with no OpenTelemetry SDK registered no trace header is generated', async () => {
    const seen = collect('bus.test.trace');
    await bus.publish('bus.test.trace', { key: 'k', type: 't', data: { n: 1 } });
    await waitFor('the message', () => seen.length === 1, 30_000);
    expect(seen[0]!.context.headers.traceparent).toBeUndefined();
  });
  test('with a propagator registered the active span travels and the handler runs in that trace', async () => {
    const unregister = registerTestTracing();
    try {
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const handlerTraceIds: (string | undefined)[] = [];
      const seen = collect('bus.test.trace', async () => {
        handlerTraceIds.push(trace.getSpanContext(context.active())?.traceId);
      });
      await context.with(contextWithSpan(traceId, '00f067aa0ba902b7'), () => bus.publish('bus.test.trace', { key: 'k', type: 't', data: { n: 2 } }));
      await waitFor('the traced message', () => seen.find((s) => (s.message.data as { n: number }).n === 2), 30_000);
      const traced = seen.find((s) => (s.message.data as { n: number }).n === 2)!;
      expect(traced.context.headers.traceparent).toBe(`00-${traceId}-00f067aa0ba902b7-01`);
      expect(handlerTraceIds[handlerTraceIds.length - 1]).toBe(traceId);
    } finally {
      unregister();
    }
  });
  test('a message carrying its own traceparent (an outbox entry, relayed later) is sent in that trace, not in the active one', async () => {
    const unregister = registerTestTracing();
    try {
      const own = '0af7651916cd43dd8448eb211c80319c';
      const seen = collect('bus.test.trace');
      await context.with(contextWithSpan('4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b7'), () =>
        bus.publish('bus.test.trace', { key: 'k', type: 't', data: { n: 3 }, headers: { traceparent: `00-${own}-b7ad6b7169203331-01` } }),
      );
      const traced = await waitFor('the relayed message', () => seen.find((s) => (s.message.data as { n: number }).n === 3), 30_000);
      expect(traced.context.headers.traceparent?.split('-')[1]).toBe(own);
    } finally {
      unregister();
    }
  });
});

describe('per-key ordering: one partition is handled one message at a time, in order', () => {
  test('messages of each key arrive in publish order while partitions run concurrently', async () => {
    let inFlightPerPartition = new Map<number, number>();
    let overlap = false;
    const seen = collect('bus.test.order', async ({ context: ctx }) => {
      const n = (inFlightPerPartition.get(ctx.partition) ?? 0) + 1;
      inFlightPerPartition.set(ctx.partition, n);
      if (n > 1) overlap = true;
      await new Promise((resolve) => setTimeout(resolve, 2));
      inFlightPerPartition.set(ctx.partition, n - 1);
    });
    const keys = Array.from({ length: 8 }, (_, i) => `agg-${i}`);
    for (let seq = 0; seq < 10; seq++) {
      await bus.publishMany(
        'bus.test.order',
        keys.map((key) => ({ key, type: 'test.step', data: { seq } })),
      );
    }
    await waitFor('all 80 messages', () => seen.length === 80, 30_000);
    for (const key of keys) {
      expect(seen.filter((s) => s.context.key === key).map((s) => (s.message.data as { seq: number }).seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    }
    expect(overlap).toBe(false);
    expect(new Set(seen.map((s) => s.context.partition)).size).toBeGreaterThan(1);
    inFlightPerPartition = new Map();
  });
});

describe('a handler that keeps failing: bounded retries, then the dead-letter topic with the error', () => {
  test('after maxAttempts (3 here) the message lands on <topic>.dlq with its error, and later messages go on', async () => {
    const seen = collect('bus.test.retry', async ({ message }) => {
      if ((message.data as { poison?: boolean }).poison) throw new Error('cannot handle this one');
    });
    const dead = collect('bus.test.retry.dlq');
    const poison = await bus.publish('bus.test.retry', { key: 'k', type: 'test.step', data: { poison: true } });
    await bus.publish('bus.test.retry', { key: 'k', type: 'test.step', data: { poison: false } });
    await waitFor('the dead letter and the next message', () => dead.length === 1 && seen.length === 4, 30_000);
    expect(seen.filter((s) => s.message.id === poison.id).map((s) => s.context.attempt)).toEqual([1, 2, 3]);
    const letter = dead[0]!;
    expect(letter.message.type).toBe('bus.dead-letter');
    expect(letter.context.key).toBe('k');
    expect(letter.message.data).toMatchObject({
      topic: 'bus.test.retry',
      offset: '0',
      key: 'k',
      headers: {},
      error: { message: 'cannot handle this one', attempts: 3, kind: 'handler', consumerGroup: 'bus-test-shared' },
    });
    expect(JSON.parse((letter.message.data as { value: string }).value)).toEqual(poison);
  });
  test('a NonRetryableError skips the remaining attempts', async () => {
    const seen = collect('bus.test.nonretry', async () => {
      throw new NonRetryableError('bad input');
    });
    const dead = collect('bus.test.nonretry.dlq');
    await bus.publish('bus.test.nonretry', { key: 'k', type: 'test.step', data: {} });
    await waitFor('the dead letter', () => dead.length === 1, 30_000);
    expect(seen).toHaveLength(1);
    expect(dead[0]!.message.data).toMatchObject({ error: { message: 'bad input', attempts: 1, name: 'NonRetryableError' } });
  });
});

describe('a dead-letter topic has no dead-letter topic: its failing handler is retried until it succeeds', () => {
  test('attempts go past maxAttempts, each failure is logged, nothing is dead-lettered again', async () => {
    const seen = collect('bus.test.dlqretry.dlq', async ({ context: ctx }) => {
      if (ctx.attempt < 5) throw new Error(`still failing (${ctx.attempt})`);
    });
    await bus.publish('bus.test.dlqretry.dlq', {
      key: 'k',
      type: 'bus.dead-letter',
      data: {
        topic: 'bus.test.dlqretry',
        partition: 0,
        offset: '7',
        key: 'k',
        value: '{}',
        headers: {},
        error: { message: 'x', attempts: 3, failedAt: new Date().toISOString(), consumerGroup: 'g' },
      },
    });
    await waitFor('the fifth attempt', () => seen.some((s) => s.context.attempt === 5), 30_000);
    expect(seen.map((s) => s.context.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(logger.entries.filter((e) => e.msg.startsWith('handler of a dead-letter topic failed')).length).toBe(2);
  });
});

describe('malformed messages go straight to the dead-letter topic; nothing is dropped silently', () => {
  test('bad JSON and a schema failure are dead-lettered without calling the handler', async () => {
    const seen = collect('bus.test.malformed');
    const dead = collect('bus.test.malformed.dlq');
    const raw = new Kafka({ brokers: mock.brokers, clientId: 'raw', logLevel: logLevel.NOTHING }).producer();
    await raw.connect();
    await raw.send({
      topic: 'bus.test.malformed',
      messages: [
        { key: 'a', value: '{not json' },
        { key: 'a', value: JSON.stringify({ id: 'x', type: 't', occurredAt: 'now', data: {} }), headers: { origin: 'raw' } },
        { key: 'a', value: JSON.stringify({ id: 'y', type: 't', occurredAt: new Date().toISOString(), data: { ok: true } }) },
      ],
    });
    await raw.disconnect();
    await waitFor('two dead letters and the good message', () => dead.length === 2 && seen.length === 1, 30_000);
    expect(seen[0]!.message.id).toBe('y');
    const [first, second] = dead.map(
      (d) => d.message.data as { value: string; headers: Record<string, string>; error: { message: string; kind: string; attempts: number } },
    );
    expect(first).toMatchObject({ value: '{not json', error: { kind: 'malformed', attempts: 0, message: expect.stringContaining('not JSON') } });
    expect(second).toMatchObject({ headers: { origin: 'raw' }, error: { kind: 'malformed', message: expect.stringContaining('/occurredAt') } });
  });
});

describe('idempotent handling by message id', () => {
  test('a message id already processed by the group is skipped and its offset committed', async () => {
    const seen = collect('bus.test.dedupe');
    const message = { key: 'k', type: 'test.step', id: 'fixed-id', data: { n: 1 } };
    await bus.publish('bus.test.dedupe', message);
    await bus.publish('bus.test.dedupe', message);
    await bus.publish('bus.test.dedupe', { ...message, id: 'other-id' });
    await waitFor(
      'the duplicate to be skipped',
      () => seen.length === 2 && logger.entries.some((e) => e.msg === 'message already processed: skipped' && e.fields.messageId === 'fixed-id'),
      30_000,
    );
    expect(seen.map((s) => s.message.id)).toEqual(['fixed-id', 'other-id']);
  });
});

describe('graceful stop: stop fetching, let in-flight handlers finish, commit, disconnect', () => {
  test('a handler in flight completes, its offset is committed, and the group resumes after it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const order: string[] = [];
    const first = await ownGroup('bus.test.stop', 'stop-group', async ({ message }) => {
      if ((message.data as { n: number }).n === 1) await gate;
      order.push(`handler ${(message.data as { n: number }).n} finished`);
    });
    await bus.publish('bus.test.stop', { key: 'k', type: 'test.step', data: { n: 1 } });
    await waitFor('the slow handler to start', () => first.seen.length === 1, 30_000);
    const stopping = first.consumer.stop().then(() => order.push('stopped'));
    // The handler is released only once stop() is under way: stop must still wait for it.
    await waitFor('stop() to begin', () => logger.entries.some((e) => e.msg.startsWith('consumer stopping') && e.fields.groupId === 'stop-group'), 30_000);
    release();
    await stopping;
    expect(order).toEqual(['handler 1 finished', 'stopped']);
    ownConsumers.splice(ownConsumers.indexOf(first.consumer), 1);

    await bus.publish('bus.test.stop', { key: 'k', type: 'test.step', data: { n: 2 } });
    const second = await ownGroup('bus.test.stop', 'stop-group');
    await waitFor('the next message', () => second.seen.length >= 1, 30_000);
    expect(second.seen.map((s) => (s.message.data as { n: number }).n)).toEqual([2]);
  });
});
