// The topic catalog and message validation; no broker needed (except a refused connection).
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '@ars/logger';
import {
  TOPICS,
  buildEnvelope,
  createBus,
  decodeMessage,
  deadLetterTopic,
  isTopicName,
  topicProvisioning,
  topicSpec,
  validateMessage,
  type BusLogger,
  type OutboxPublisher,
} from './index.js';
import { memoryLogger, packageRoot } from './testing/helpers.js';

const runRequested = {
  runId: 'run-1',
  userId: 'user-1',
  repoId: 'repo-1',
  harness: 'codex',
  prompt: 'fix the bug',
  branch: { base: 'main', working: 'ars/run-1', createBranch: true },
  rootDirectory: null,
};

describe('one topic catalog: every topic with its partitions, description and data schema, and a dead-letter topic each', () => {
  test('the domain topics are all there', () => {
    expect(Object.keys(TOPICS).sort()).toEqual(
      [
        'automations.dispatch',
        'bus.test',
        'pr-reviews.requested',
        'runs.agent-events',
        'runs.finished',
        'runs.requested',
        'runs.sandbox-allocated',
        'runs.sandbox-queued',
        'sandboxes.lifecycle',
      ].sort(),
    );
    for (const spec of Object.values(TOPICS)) {
      expect(spec.partitions).toBeGreaterThan(0);
      expect(spec.description.length).toBeGreaterThan(10);
    }
  });
  test('provisioning lists each topic and its <name>.dlq', () => {
    const names = topicProvisioning().map((t) => t.name);
    for (const name of Object.keys(TOPICS)) {
      expect(names).toContain(name);
      expect(names).toContain(`${name}.dlq`);
    }
    expect(deadLetterTopic('runs.finished')).toBe('runs.finished.dlq');
  });
  test('the README table documents every topic with its partition count', () => {
    const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
    for (const spec of Object.values(TOPICS)) {
      expect(readme).toContain(`| \`${spec.name}\` | ${spec.partitions} |`);
    }
  });
  test('tests get fresh topics bus.test.<suffix>; unknown names and dead letters of dead letters are refused', () => {
    expect(topicSpec('bus.test.anything')?.name).toBe('bus.test.anything');
    expect(topicSpec('bus.test.anything.dlq')?.types).toEqual(['bus.dead-letter']);
    expect(isTopicName('runs.requested.dlq')).toBe(true);
    expect(isTopicName('runs.requested.dlq.dlq')).toBe(false);
    expect(isTopicName('runs.unknown')).toBe(false);
    expect(isTopicName('bus.test.')).toBe(false);
  });
});

describe('id, type, occurredAt, data and the key are always checked', () => {
  test('a valid run.requested passes', () => {
    expect(validateMessage('runs.requested', 'run-1', { id: 'm1', type: 'run.requested', occurredAt: new Date().toISOString(), data: runRequested })).toEqual(
      [],
    );
  });
  test('each envelope problem is named by its path', () => {
    const problems = validateMessage('runs.requested', null, {
      type: '',
      occurredAt: '2020-01-01',
      data: { ...runRequested, branch: { base: 'main' } },
      extra: 1,
    });
    const paths = problems.map((p) => p.path);
    expect(paths).toEqual(expect.arrayContaining(['(key)', '/id', '/type', '/occurredAt', '/extra', '/data/branch']));
  });
  test('permissive schemas accept extra fields but still require their ids', () => {
    const base = { id: 'm', type: 'sandbox.created', occurredAt: new Date().toISOString() };
    expect(validateMessage('sandboxes.lifecycle', 's', { ...base, data: { sandboxId: 's', whatever: { nested: true } } })).toEqual([]);
    expect(validateMessage('sandboxes.lifecycle', 's', { ...base, data: { whatever: 1 } }).map((p) => p.path)).toEqual(['/data']);
  });
  test('buildEnvelope fills id and occurredAt and throws INTERNAL_ERROR on an invalid message', () => {
    const envelope = buildEnvelope('runs.requested', { key: 'run-1', type: 'run.requested', data: runRequested, occurredAt: new Date(0) });
    expect(envelope).toMatchObject({ type: 'run.requested', occurredAt: '1970-01-01T00:00:00.000Z', data: runRequested });
    expect(() => buildEnvelope('runs.requested', { key: 'run-1', type: 'run.requested', data: { ...runRequested, prompt: 3 } })).toThrow(
      expect.objectContaining({ code: 'INTERNAL_ERROR', message: expect.stringContaining('/data/prompt') }),
    );
  });
  test('decoding a record names what is malformed', () => {
    expect(decodeMessage('bus.test.x', 'k', Buffer.from('nope'))).toMatchObject({ ok: false, reason: expect.stringContaining('not JSON') });
    expect(decodeMessage('bus.test.x', 'k', null)).toMatchObject({ ok: false });
    const good = JSON.stringify({ id: 'a', type: 't', occurredAt: new Date().toISOString(), data: {} });
    expect(decodeMessage('bus.test.x', 'k', Buffer.from(good))).toMatchObject({ ok: true, message: { id: 'a' } });
    expect(decodeMessage('bus.test.x', null, Buffer.from(good))).toMatchObject({ ok: false, reason: expect.stringContaining('(key)') });
  });
});

describe('runs.finished may name the run’s allocation (runs.sandbox-allocated’s fields): all three or none; a finish without them stays valid', () => {
  const envelope = (data: Record<string, unknown>) => ({ id: 'm', type: 'run.finished', occurredAt: new Date().toISOString(), data });
  const finish = { runId: 'run-1', status: 'success', error: null, failure: null, eventCount: 3 };
  const allocation = { sandboxRecordId: 'sbx_1', sandboxId: 'local-1', runtime: { provider: 'local', runId: 'ses_1' } };

  test('without an allocation (a message of before, or a session that had no sandbox), and with one', () => {
    expect(validateMessage('runs.finished', 'run-1', envelope(finish))).toEqual([]);
    expect(validateMessage('runs.finished', 'run-1', envelope({ ...finish, ...allocation }))).toEqual([]);
    expect(
      validateMessage('runs.finished', 'run-1', envelope({ ...finish, ...allocation, sandboxId: null, runtime: { provider: null, runId: null } })),
    ).toEqual([]);
  });
  test('half an allocation, or one of another shape, is refused', () => {
    const { runtime: _runtime, ...withoutRuntime } = allocation;
    const paths = (data: Record<string, unknown>) => [...new Set(validateMessage('runs.finished', 'run-1', envelope(data)).map((p) => p.path))];
    expect(paths({ ...finish, ...withoutRuntime })).toEqual(['/data']);
    expect(paths({ ...finish, runtime: allocation.runtime })).toEqual(['/data']);
    expect(paths({ ...finish, ...allocation, sandboxRecordId: '' })).toEqual(['/data/sandboxRecordId']);
    expect(paths({ ...finish, ...allocation, runtime: { provider: 'local' } })).toEqual(['/data/runtime']);
  });
});

describe('kafkajs logs are routed into the logger, not the console', () => {
  test('a pino logger from @ars/logger is a BusLogger', () => {
    const sink = new Writable({ write: (_chunk, _enc, done) => done() });
    const logger: BusLogger = createLogger({ service: 'test', destination: sink });
    expect(typeof logger.child({ a: 1 }).info).toBe('function');
  });
  test('an unreachable broker: connect fails with SERVICE_UNAVAILABLE and kafkajs says why in the logger', async () => {
    const logger = memoryLogger();
    const bus = createBus({ brokers: ['127.0.0.1:1'], clientId: 'nowhere', logger, retry: { retries: 0 }, connectionTimeoutMs: 500 });
    const relayPublisher: OutboxPublisher = bus; // a Bus is what the outbox relay needs
    expect(relayPublisher).toBe(bus);
    await expect(bus.connect()).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(await bus.isReady()).toBe(false);
    expect(logger.entries.some((e) => e.fields.component === 'kafkajs' && e.level === 'error')).toBe(true);
    await bus.disconnect();
  });
});
