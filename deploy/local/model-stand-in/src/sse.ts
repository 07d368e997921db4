// Server-Sent Events as both providers stream them: one `event: <type>` line, one `data:` line of
// JSON (JSON.stringify never emits a raw newline, so one line always suffices), a blank line.
import type { ServerResponse } from 'node:http';

export function sseFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export interface SseEvent {
  event: string;
  data: unknown;
}

/**
 * Reads an event stream back (the `event` and the JSON of its `data` lines), as a client does:
 * frames end at a blank line, `:` lines are comments, several `data:` lines join with newlines,
 * an event without `event:` is `message`. For tests and for checking what a stand-in sent.
 */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const frame of text.split(/\r?\n\r?\n/)) {
    let event = 'message';
    const data: string[] = [];
    for (const line of frame.split(/\r?\n/)) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0) events.push({ event, data: JSON.parse(data.join('\n')) as unknown });
  }
  return events;
}

/**
 * One streamed answer. `gone` aborts when the client goes away before the answer ended (a CLI
 * killed on cancel drops its connection): every later write is skipped, and `@sleep` ends early.
 */
export class SseWriter {
  private started = false;
  private readonly controller = new AbortController();

  constructor(private readonly res: ServerResponse) {
    res.on('close', () => {
      if (!res.writableFinished) this.controller.abort();
    });
  }

  get gone(): AbortSignal {
    return this.controller.signal;
  }

  /** Whether the 200 and its headers went out (after that, a failure can only be told in the stream). */
  get hasStarted(): boolean {
    return this.started;
  }

  start(headers: Record<string, string> = {}): void {
    if (this.started) return;
    this.started = true;
    this.res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', ...headers });
  }

  /** Writes one event, waiting while the client reads slowly; a no-op once the client is gone. */
  async send(event: string, data: unknown): Promise<void> {
    this.start();
    if (this.gone.aborted) return;
    if (this.res.write(sseFrame(event, data))) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.res.off('drain', done);
        this.gone.removeEventListener('abort', done);
        resolve();
      };
      this.res.once('drain', done);
      this.gone.addEventListener('abort', done, { once: true });
    });
  }

  end(): void {
    if (!this.res.writableEnded) this.res.end();
  }
}

/** Waits `ms`, or less when `signal` aborts first. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = (): void => {
      clearTimeout(timer);
      resolve();
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}

/** Text in pieces, as a model streams it; never splits a character (a surrogate pair stays whole). */
export function chunks(text: string, size = 64): string[] {
  const characters = Array.from(text);
  const parts: string[] = [];
  for (let i = 0; i < characters.length; i += size) parts.push(characters.slice(i, i + size).join(''));
  return parts;
}
