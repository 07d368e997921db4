// isInfrastructureError: one rule per kind of error, each with the error the real library raises.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError, KafkaJSNonRetriableError } from 'kafkajs';
import { MongoClient, MongoNetworkError, MongoNotConnectedError, MongoServerError, MongoNetworkTimeoutError } from 'mongodb';
import { AppError } from '@ars/errors';
import { createHttpClient } from '@ars/http-client';
import { createLogger } from '@ars/logger';
import { isInfrastructureError, NonRetryableError, TransientError } from './index.js';

const logger = createLogger({ service: 'bus-test', level: 'silent' });

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A broker error entry as kafkajs decodes it (its typings say Error; it reads type, code and retriable). */
function brokerError(entry: { message: string; type: string; code: number; retriable: boolean }): Error {
  return entry as unknown as Error;
}

let peer: Server;
let peerUrl: string;
beforeAll(async () => {
  // A peer answering by path: /503 and /500 without an envelope, /404 with one.
  peer = createServer((req, res) => {
    if (req.url === '/404')
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error: { code: 'NOT_FOUND', message: 'no such run' } }));
    else res.writeHead(Number(req.url?.slice(1)), { 'content-type': 'text/plain' }).end('down');
  });
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
  peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => peer.close(() => resolve()));
});

describe('MongoDB unreachable, not primary or asking for a retry is infrastructure', () => {
  test('a server selection timeout (no server at the address) is infrastructure', async () => {
    const client = new MongoClient(`mongodb://127.0.0.1:${await closedPort()}/?directConnection=true`, { serverSelectionTimeoutMS: 200 });
    const error = await client
      .db('x')
      .collection('y')
      .findOne({})
      .catch((e: unknown) => e);
    await client.close();
    expect((error as Error).name).toBe('MongoServerSelectionError');
    expect(isInfrastructureError(error)).toBe(true);
  });
  test('a network error and a network timeout are infrastructure', () => {
    expect(isInfrastructureError(new MongoNetworkError('connection 3 to 127.0.0.1:27017 closed'))).toBe(true);
    expect(isInfrastructureError(new MongoNetworkTimeoutError('connection timed out'))).toBe(true);
  });
  test('a client not connected is infrastructure', () => {
    expect(isInfrastructureError(new MongoNotConnectedError('client must be connected'))).toBe(true);
  });
  test('a server error labelled RetryableWriteError or TransientTransactionError is infrastructure', () => {
    const retryable = new MongoServerError({ message: 'write interrupted', code: 1, errorLabels: ['RetryableWriteError'] });
    const transient = new MongoServerError({ message: 'txn', code: 2, errorLabels: ['TransientTransactionError'] });
    expect(isInfrastructureError(retryable)).toBe(true);
    expect(isInfrastructureError(transient)).toBe(true);
  });
  test('a server error "not writable primary" (10107) or "shutdown in progress" (91) is infrastructure', () => {
    expect(isInfrastructureError(new MongoServerError({ message: 'not primary', code: 10107 }))).toBe(true);
    expect(isInfrastructureError(new MongoServerError({ message: 'shutting down', code: 91 }))).toBe(true);
  });
  test('a duplicate key (11000) or a validation failure (121) is not: that is the message', () => {
    expect(isInfrastructureError(new MongoServerError({ message: 'E11000 duplicate key', code: 11000 }))).toBe(false);
    expect(isInfrastructureError(new MongoServerError({ message: 'Document failed validation', code: 121 }))).toBe(false);
  });
});

describe('Kafka unreachable or a failed publish is infrastructure', () => {
  test('a connection error and retries exhausted are infrastructure', () => {
    expect(isInfrastructureError(new KafkaJSConnectionError('Connection error: connect ECONNREFUSED'))).toBe(true);
    expect(isInfrastructureError(new KafkaJSNumberOfRetriesExceeded(new Error('x'), { retryCount: 8, retryTime: 10_000 }))).toBe(true);
  });
  test('a protocol error kafkajs calls retriable is infrastructure; a non-retriable one is not', () => {
    expect(
      isInfrastructureError(new KafkaJSProtocolError(brokerError({ message: 'leader not available', type: 'LEADER_NOT_AVAILABLE', code: 5, retriable: true }))),
    ).toBe(true);
    expect(isInfrastructureError(new KafkaJSNonRetriableError('message too large'))).toBe(false);
  });
  test("the bus' publish failure (AppError SERVICE_UNAVAILABLE wrapping kafkajs) is infrastructure", () => {
    expect(isInfrastructureError(new AppError('SERVICE_UNAVAILABLE', 'publish to runs.finished failed', { cause: new Error('x') }))).toBe(true);
  });
});

describe('an internal HTTP call that cannot connect, times out or gets a 5xx is infrastructure', () => {
  test('connection refused (the @ars/http-client error) is infrastructure', async () => {
    const client = createHttpClient({ baseUrl: `http://127.0.0.1:${await closedPort()}`, peer: 'sandboxes', caller: 'runs', logger });
    const error = await client.get('/x').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(isInfrastructureError(error)).toBe(true);
  });
  test('a peer answering 503 or 500 is infrastructure; its 404 envelope is not', async () => {
    const client = createHttpClient({ baseUrl: peerUrl, peer: 'catalog', caller: 'runs', logger });
    const unavailable = await client.get('/503').catch((e: unknown) => e);
    const broken = await client.get('/500').catch((e: unknown) => e);
    const missing = await client.get('/404').catch((e: unknown) => e);
    expect(isInfrastructureError(unavailable)).toBe(true);
    expect(broken).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(isInfrastructureError(broken)).toBe(true);
    expect(missing).toMatchObject({ code: 'NOT_FOUND' });
    expect(isInfrastructureError(missing)).toBe(false);
  });
  test("fetch's own failure (a TypeError caused by ECONNREFUSED) is infrastructure", async () => {
    const error = await fetch(`http://127.0.0.1:${await closedPort()}/`).catch((e: unknown) => e);
    expect((error as Error).name).toBe('TypeError');
    expect(isInfrastructureError(error)).toBe(true);
  });
  test('a deadline (AbortSignal.timeout) is infrastructure', async () => {
    const error = await new Promise((_, reject) => {
      const signal = AbortSignal.timeout(1);
      signal.addEventListener('abort', () => reject(signal.reason));
    }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('TimeoutError');
    expect(isInfrastructureError(error)).toBe(true);
  });
});

describe("a handler's own marks: TransientError is infrastructure, NonRetryableError never is", () => {
  test('TransientError is infrastructure', () => {
    expect(isInfrastructureError(new TransientError('the sandbox is still starting'))).toBe(true);
  });
  test('NonRetryableError is not, even wrapping an infrastructure error', () => {
    expect(isInfrastructureError(new NonRetryableError('bad input', { cause: new MongoNetworkError('closed') }))).toBe(false);
  });
  test('an error wrapping an infrastructure error (cause) is infrastructure', () => {
    expect(isInfrastructureError(new Error('could not store the event', { cause: new MongoNetworkError('closed') }))).toBe(true);
  });
  test('an ordinary error, a string and undefined are not', () => {
    expect(isInfrastructureError(new Error('cannot handle this one'))).toBe(false);
    expect(isInfrastructureError(new TypeError("Cannot read properties of undefined (reading 'runId')"))).toBe(false);
    expect(isInfrastructureError('ECONNREFUSED')).toBe(false);
    expect(isInfrastructureError(undefined)).toBe(false);
  });
});
