// A stand-in of the service for the client's unit tests: a real HTTP server (node:http) that answers
// what each test scripts, in the contract's envelopes, with an X-Request-Id on every answer as the
// gateway sets it, and records every request as it arrived.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ArsClient, type ArsClientOptions } from '../src/index.js';

export interface Received {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Answers one request; `n` counts the requests so far (1 for the first). */
export type Script = (request: Received, response: ServerResponse, n: number) => void | Promise<void>;

export interface StandIn {
  baseUrl: string;
  received: Received[];
  /** What the stand-in answers from now on. */
  answer(script: Script): void;
  close(): Promise<void>;
}

export async function startStandIn(script: Script = (_, res) => fail(res, 500, 'INTERNAL_ERROR', 'no script')): Promise<StandIn> {
  let current = script;
  const received: Received[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const request = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(request);
      res.setHeader('X-Request-Id', `req-${received.length}`);
      void Promise.resolve(current(request, res, received.length)).catch((error: unknown) => res.destroy(error as Error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    received,
    answer: (next) => {
      current = next;
    },
    // Idempotent: a test may close it early (nothing listening) and the suite closes it again.
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The success envelope `{ok: true, data}`. */
export function ok(res: ServerResponse, status: number, data: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify({ ok: true, data }));
}

/** The failure envelope `{ok: false, error: {code, message}}`. */
export function fail(res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify({ ok: false, error: { code, message } }));
}

/** A run as the contract shapes it, with the given status. */
export function runOf(runId: string, status: string) {
  return {
    runId,
    aiCallId: `ai-${runId}`,
    sandboxRecordId: null,
    sandboxId: null,
    repoId: 'repo-1',
    harness: 'codex' as const,
    status: status as 'queued',
    branch: { base: 'main', working: 'main', createBranch: false },
    rootDirectory: null,
    eventsUrl: `/api/v1/svc/runs/${runId}/events`,
    cancelUrl: `/api/v1/svc/runs/${runId}/cancel`,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    error: null,
    runtime: { provider: null, runId: null },
  };
}

/** A run event: `e<n>`, an assistant message saying `said <n>`. */
export function eventOf(n: number) {
  return { id: `e${n}`, type: 'assistant_message', toolName: null, message: `said ${n}`, payload: {}, createdAt: '2026-01-01T00:00:00.000Z' };
}

/** A stand-in for each test of the file, started before and closed after it. */
export function standInPerTest(): () => StandIn {
  let current: StandIn | undefined;
  beforeEach(async () => {
    current = await startStandIn();
  });
  afterEach(() => current?.close());
  return () => {
    if (!current) throw new Error('the stand-in is started for each test (use it inside tests)');
    return current;
  };
}

/** A client of the stand-in with a test token. */
export function clientOf(standIn: StandIn, options: Partial<ArsClientOptions> = {}): ArsClient {
  return new ArsClient({ baseUrl: standIn.baseUrl, token: 'tok_test', ...options });
}

/** What a promise rejected with (undefined when it resolved). */
export function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}
