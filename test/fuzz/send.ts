// Requests exactly as written: node:http, not fetch, since fetch's URL parser would resolve `../`,
// re-encode what we percent-encoded on purpose and refuse some headers before they leave. Every
// request has a deadline (a missed one is a hang, reported as such), its own connection (an edge
// refusal closes it), and the PAT of the pool's turn unless the case writes its own Authorization.
import { request } from 'node:http';
import { createHash } from 'node:crypto';
import { DEADLINE_MS } from './settings.js';
import type { TokenPool } from './tokens.js';

export interface RawRequest {
  method: string;
  /** The request target as it goes on the request line: already percent-encoded where it should be. */
  path: string;
  headers: Readonly<Record<string, string>>;
  /** The body as raw text (hand-built JSON, or not JSON at all). */
  body?: string;
  /** `latin1`: each character of the body one byte (to send bytes that are not UTF-8). */
  bodyEncoding?: 'utf8' | 'latin1';
  /** `pool`: a PAT of the fuzzing tenant's; a string: this Authorization header; null: none. */
  authorization: 'pool' | string | null;
}

export interface RawAnswer {
  status: number;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  text: string;
  ms: number;
}

export type Outcome = { kind: 'answer'; answer: RawAnswer } | { kind: 'hang'; ms: number } | { kind: 'broken'; error: string };

const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

function once(target: URL, raw: RawRequest, authorization: string | null): Promise<Outcome> {
  const started = Date.now();
  return new Promise<Outcome>((resolve) => {
    const headers: Record<string, string> = { ...raw.headers };
    if (authorization !== null) headers.authorization = authorization;
    const body = raw.body === undefined ? undefined : Buffer.from(raw.body, raw.bodyEncoding ?? 'utf8');
    if (body !== undefined) headers['content-length'] = String(body.length);
    let outgoing: ReturnType<typeof request>;
    try {
      outgoing = request({ host: target.hostname, port: target.port, method: raw.method, path: raw.path, headers, agent: false });
    } catch (error) {
      // Node refused to write it (a character a request line or header cannot hold): a generator's mistake, not the server's.
      resolve({ kind: 'broken', error: `not sendable: ${(error as Error).message}` });
      return;
    }
    let settled = false;
    const timer = setTimeout(() => {
      outgoing.destroy();
      settle({ kind: 'hang', ms: Date.now() - started });
    }, DEADLINE_MS);
    const settle = (outcome: Outcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      let size = 0;
      incoming.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_ANSWER_BYTES) chunks.push(chunk);
      });
      incoming.on('end', () =>
        settle({
          kind: 'answer',
          answer: { status: incoming.statusCode ?? 0, headers: incoming.headers, text: Buffer.concat(chunks).toString('utf8'), ms: Date.now() - started },
        }),
      );
      incoming.on('error', (error) => settle({ kind: 'broken', error: `answer cut off: ${error.message}` }));
    });
    // The server may answer (and close) before it has read a body it refuses: that answer counts.
    outgoing.on('error', (error) => setTimeout(() => settle({ kind: 'broken', error: `no answer: ${error.message}` }), 50));
    outgoing.end(body);
  });
}

/**
 * Sends requests to one base URL and remembers each answer by the request (less its PAT): a second
 * property over the same cases (same seed) reads the answers the first one got instead of sending
 * them again.
 */
export class Sender {
  private readonly answers = new Map<string, Promise<Outcome>>();
  sent = 0;
  constructor(
    private readonly baseUrl: string,
    private readonly tokens: TokenPool,
  ) {}

  send(raw: RawRequest): Promise<Outcome> {
    const key = createHash('sha256')
      .update(JSON.stringify([raw.method, raw.path, raw.headers, raw.body ?? null, raw.bodyEncoding ?? 'utf8', raw.authorization]))
      .digest('hex');
    let outcome = this.answers.get(key);
    if (!outcome) {
      outcome = this.sendNow(raw);
      this.answers.set(key, outcome);
    }
    return outcome;
  }

  private async sendNow(raw: RawRequest): Promise<Outcome> {
    this.sent += 1;
    const authorization = raw.authorization === 'pool' ? `Bearer ${await this.tokens.take()}` : raw.authorization;
    return once(new URL(this.baseUrl), raw, authorization);
  }
}

/** A header's value as one string. */
export function headerOf(answer: RawAnswer, name: string): string | undefined {
  const value = answer.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** What a failure prints of an answer: its status and the start of its body. */
export function describeOutcome(outcome: Outcome): string {
  if (outcome.kind === 'hang') return `no answer within ${outcome.ms} ms`;
  if (outcome.kind === 'broken') return outcome.error;
  const { status, text, ms } = outcome.answer;
  return `HTTP ${status} in ${ms} ms: ${text.length > 600 ? `${text.slice(0, 600)}… (${text.length} chars)` : text}`;
}
