// What the benchmarks share: the whole local stack, a user of the gateway with PATs taken in turn,
// JSON calls, starting a run, a Server-Sent Events reader, a whole run's check, percentiles.
import { randomBytes } from 'node:crypto';
export { startBenchStack } from '@ars/stack';
import { sseItems, type SseFrame } from '@ars/testenv';

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

/** `POST /runs` for the user's repository with this prompt (a fresh idempotency key each time); the default harness unless named. */
export function startRun(api: string, user: User, prompt: string, harness?: string): Promise<{ status: number; data: { runId: string } }> {
  return json(`${api}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokenOf(user)}`, 'idempotency-key': randomBytes(8).toString('hex') },
    body: JSON.stringify({ repoId: user.repoId, prompt, ...(harness ? { harness } : {}) }),
  });
}

export interface TimedSseFrame extends SseFrame {
  /** `Date.now()` when the frame's blank line was parsed. */
  receivedAt: number;
}

/**
 * Reads `url` as Server-Sent Events until the server ends the stream, framed as EventSource does
 * (WHATWG HTML: `id:`/`event:`/`data:` lines, a blank line ends a frame, `:` comments skipped);
 * `onFrame` gets every frame as soon as it is parsed (`sseItems` of @ars/testenv, the parser the
 * tests' stream client uses). Throws when the answer is not a stream.
 */
export async function readEventStream(url: string, token: string, onFrame: (frame: TimedSseFrame) => void): Promise<void> {
  const response = await fetch(url, { headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` } });
  if (!response.headers.get('content-type')?.startsWith('text/event-stream') || !response.body) {
    throw new Error(`GET ${url}: ${response.status} is no event stream: ${await response.text()}`);
  }
  for await (const item of sseItems(response.body as unknown as AsyncIterable<Uint8Array>)) {
    if (item.kind === 'frame') onFrame({ ...item.frame, receivedAt: Date.now() });
  }
}

/** Which codex CLI the bench's own stack runs: the stand-in unless `HARNESS_CLIS=real` (startBenchStack passes it on). */
export const harnessLabel = (): string => (process.env.HARNESS_CLIS === 'real' ? 'the real codex CLI' : 'stand-in harness (codex)');

export const percentile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};

export interface RunEvent {
  id: string;
  type: string;
  message: string | null;
  createdAt: string;
}
export interface Run {
  runId: string;
  status: string;
  createdAt: string;
}
export interface Received {
  event: RunEvent;
  receivedAt: number;
}
export interface Reading {
  run: Run;
  received: Received[];
}

export const TERMINAL = new Set(['success', 'failed', 'cancelled']);
/** The text of the `i`-th `@say` of a bench run tagged `tag`. */
export const sayText = (tag: string, i: number): string => `${tag} ${i}`;

/** Every event through the stream, each with the moment its frame was parsed; the run as last sent. */
export async function readStream(api: string, user: User, runId: string): Promise<Reading> {
  const received: Received[] = [];
  let run: Run | undefined;
  await readEventStream(`${api}/runs/${runId}/events`, tokenOf(user), (frame) => {
    if (frame.event === 'run') run = JSON.parse(frame.data) as Run;
    else if (frame.event === 'error') throw new Error(`run ${runId}: the stream sent an error: ${frame.data}`);
    else received.push({ event: JSON.parse(frame.data) as RunEvent, receivedAt: frame.receivedAt });
  });
  if (!run) throw new Error(`run ${runId}: the stream ended without the run's status`);
  return { run, received };
}

/**
 * Fails loudly unless the client got the whole run, once, in order: ids `<runId>:event:0…n-1`,
 * `stream_started` first, `completed` last, the `@say` texts `<tag> 0…count-1` in order, the run `success`.
 */
export function checkWhole(runId: string, reading: Reading, tag: string, count: number): void {
  const fail = (why: string): never => {
    throw new Error(`run ${runId}, ${tag}: ${why} — the figures would measure a broken stream`);
  };
  const { run, received } = reading;
  if (run.status !== 'success') fail(`the run ended ${run.status}`);
  received.forEach(({ event }, seq) => {
    if (event.id !== `${runId}:event:${seq}`) fail(`event ${seq} of the client is ${event.id} (missing, repeated or out of order)`);
  });
  if (received[0]?.event.type !== 'stream_started') fail(`the first event is ${received[0]?.event.type}, not stream_started`);
  if (received.at(-1)?.event.type !== 'completed') fail(`the last event is ${received.at(-1)?.event.type}, not completed`);
  const says = received.filter(({ event }) => event.type === 'assistant_message');
  if (says.length !== count) fail(`${says.length} assistant messages, not ${count}`);
  says.forEach(({ event }, i) => {
    if (event.message !== sayText(tag, i)) fail(`assistant message ${i} is ${JSON.stringify(event.message)}, not ${JSON.stringify(sayText(tag, i))}`);
  });
}
