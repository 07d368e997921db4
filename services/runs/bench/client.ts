// What the benchmarks share: the whole local stack, a user of the gateway with PATs taken in turn,
// JSON calls, starting a run, a Server-Sent Events reader, percentiles.
import { randomBytes } from 'node:crypto';
import { startStack, type Stack } from '@ars/stack';

/**
 * The whole local stack (every service a process, Kafka's mock, the development MongoDB server,
 * Redis; the stand-in harnesses), the gateway on a free port, the services' output dropped.
 * KAFKA_BROKERS / MONGO_URL / REDIS_URL to use real servers instead of the local stand-ins.
 */
export function startBenchStack(): Promise<Stack> {
  return startStack({
    gatewayPort: 0,
    kafkaBrokers: process.env.KAFKA_BROKERS,
    mongoUrl: process.env.MONGO_URL,
    redisUrl: process.env.REDIS_URL,
    logLevel: 'warn',
    output: () => undefined,
  });
}

interface Envelope<T> {
  ok: boolean;
  data: T;
  error?: { code: string; message: string };
}

export async function json<T>(url: string, init: RequestInit = {}): Promise<{ status: number; data: T }> {
  const response = await fetch(url, init);
  const body = (await response.json()) as Envelope<T>;
  if (!body.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${JSON.stringify(body.error)}`);
  return { status: response.status, data: body.data };
}

/** Each PAT may make 60 requests a minute: a user polls with several, in turn. */
export interface User {
  tokens: string[];
  turn: number;
  repoId: string;
}

export function tokenOf(user: User): string {
  user.turn = (user.turn + 1) % user.tokens.length;
  return user.tokens[user.turn] ?? '';
}

export async function newUser(baseUrl: string, tokenCount = 10): Promise<User> {
  const account = (
    await json<{ sessionCookie: string; repos: { id: string }[] }>(`${baseUrl}/api/dev/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
  ).data;
  const tokens: string[] = [];
  for (let i = 0; i < tokenCount; i += 1) {
    const created = (
      await json<{ token: string }>(`${baseUrl}/api/settings/api-keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: account.sessionCookie },
        body: JSON.stringify({ name: `bench-${i}` }),
      })
    ).data;
    tokens.push(created.token);
  }
  return { tokens, turn: 0, repoId: account.repos[0]?.id ?? '' };
}

/** `POST /runs` for the user's repository with this prompt (a fresh idempotency key each time). */
export function startRun(api: string, user: User, prompt: string): Promise<{ status: number; data: { runId: string } }> {
  return json(`${api}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokenOf(user)}`, 'idempotency-key': randomBytes(8).toString('hex') },
    body: JSON.stringify({ repoId: user.repoId, prompt }),
  });
}

export interface SseFrame {
  id: string | undefined;
  event: string;
  data: string;
  /** `Date.now()` when the frame's blank line was parsed. */
  receivedAt: number;
}

/**
 * Reads `url` as Server-Sent Events until the server ends the stream, framed as EventSource does
 * (WHATWG HTML: `id:`/`event:`/`data:` lines, a blank line ends a frame, `:` comments skipped);
 * `onFrame` gets every frame as soon as it is parsed. (test/support/eventStream.ts is TypeScript
 * run by Jest only; a bench runs compiled.) Throws when the answer is not a stream.
 */
export async function readEventStream(url: string, token: string, onFrame: (frame: SseFrame) => void): Promise<void> {
  const response = await fetch(url, { headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` } });
  if (!response.headers.get('content-type')?.startsWith('text/event-stream') || !response.body) {
    throw new Error(`GET ${url}: ${response.status} is no event stream: ${await response.text()}`);
  }
  const decoder = new TextDecoder();
  let buffer = '';
  let frame: { id?: string; event?: string; data?: string[] } = {};
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      if (line === '') {
        if (frame.data) onFrame({ id: frame.id, event: frame.event ?? 'message', data: frame.data.join('\n'), receivedAt: Date.now() });
        frame = {};
      } else if (!line.startsWith(':')) {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') frame.id = value;
        else if (field === 'event') frame.event = value;
        else if (field === 'data') (frame.data ??= []).push(value);
      }
    }
  }
}

export const percentile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};
