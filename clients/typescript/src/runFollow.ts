// `runs.follow()`: the run's live event stream (gateway README, "The live event stream"): Server-Sent
// Events on GET /runs/{runId}/events with `Accept: text/event-stream`. A frame with an `id:` is a run
// event, `event: run` without one the run's status, `event: error` the stream failing; the stream
// ends once the run is terminal. A stream that ends or drops before that is opened again with
// `Last-Event-ID`, so every event is yielded once, in order.
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ArsApiError } from './errors.js';
import { TERMINAL_STATUSES } from './runStatus.js';
import { sleep } from './sleep.js';
import { connectionFailed, isRecord } from './transport.js';
import type { Run, RunEvent } from './types.js';

export type FollowItem = { type: 'event'; event: RunEvent } | { type: 'run'; run: Run };

export interface FollowOptions {
  /** Resume after this event (the id of the last one the caller has). */
  lastEventId?: string;
  signal?: AbortSignal;
}

/** Between a stream that ended early and the next one. */
const RECONNECT_MS = 1_000;

interface StreamOutcome {
  /** The `event: error` frame the stream ended with, if any. */
  error?: ArsApiError;
  /** The connection dropped (or the body could not be read) mid-stream. */
  dropped?: unknown;
}

export async function* followRun(
  runId: string,
  open: (headers: Record<string, string>, signal: AbortSignal) => Promise<Response>,
  baseUrl: string,
  maxAttempts: number,
  options: FollowOptions = {},
): AsyncGenerator<FollowItem, void, undefined> {
  const seen = new Set<string>();
  let lastEventId = options.lastEventId;
  let status: string | undefined;
  // Streams in a row that ended early with no new event and no status change: bounded like any
  // retry (a stream that brought news is always resumed).
  let fruitless = 0;
  for (;;) {
    const stop = new AbortController();
    const onAbort = () => stop.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await open(lastEventId === undefined ? {} : { 'Last-Event-ID': lastEventId }, stop.signal);
      const contentType = response.headers.get('content-type') ?? '';
      if (!contentType.startsWith('text/event-stream')) {
        await response.body?.cancel().catch(() => undefined);
        throw new ArsApiError({
          code: 'INVALID_RESPONSE',
          status: response.status,
          message: `Expected an event stream for run ${runId}, got ${contentType || 'no content type'}`,
          requestId: response.headers.get('x-request-id'),
        });
      }
      const frames: EventSourceMessage[] = [];
      const parser = createParser({ onEvent: (frame) => frames.push(frame) });
      const outcome: StreamOutcome = {};
      let progressed = false;
      try {
        for await (const text of decodedBody(response)) {
          parser.feed(text);
          for (const frame of frames.splice(0)) {
            const item = itemOf(frame, runId, outcome);
            if (!item) continue;
            if (item.type === 'event') {
              lastEventId = item.event.id;
              if (seen.has(item.event.id)) continue;
              seen.add(item.event.id);
            } else {
              // Each stream starts with the run's status: only a change is news.
              if (item.run.status === status) continue;
              status = item.run.status;
            }
            progressed = true;
            yield item;
          }
          if (outcome.error) break;
        }
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason;
        if (error instanceof ArsApiError) throw error;
        outcome.dropped = error;
      }
      // The end of a stream whose run is terminal (and no error frame): every event was sent.
      if (!outcome.error && !outcome.dropped && status !== undefined && TERMINAL_STATUSES.has(status)) return;
      fruitless = progressed ? 0 : fruitless + 1;
      if (fruitless >= maxAttempts) {
        throw outcome.error ?? connectionFailed(baseUrl, outcome.dropped ?? new Error(`the event stream of run ${runId} ended before the run did`));
      }
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      stop.abort();
    }
    await sleep(RECONNECT_MS, options.signal);
  }
}

/** The body as text chunks (UTF-8 split across chunks decoded whole). */
async function* decodedBody(response: Response): AsyncGenerator<string> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield decoder.decode(value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
}

/** A frame as the caller sees it; an `event: error` frame is kept in `outcome`; heartbeats never get here (comments). */
function itemOf(frame: EventSourceMessage, runId: string, outcome: StreamOutcome): FollowItem | undefined {
  const data = parseData(frame.data, runId);
  if (frame.id !== undefined && frame.id !== '') return { type: 'event', event: data as RunEvent };
  if (frame.event === 'run') return { type: 'run', run: data as Run };
  if (frame.event === 'error') {
    const code = isRecord(data) && typeof data.code === 'string' ? data.code : 'STREAM_ERROR';
    const message = isRecord(data) && typeof data.message === 'string' ? data.message : 'The event stream failed';
    outcome.error = new ArsApiError({ code, status: 200, message });
  }
  return undefined;
}

function parseData(data: string, runId: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new ArsApiError({
      code: 'INVALID_RESPONSE',
      status: 200,
      message: `The event stream of run ${runId} sent a frame that is not JSON: ${JSON.stringify(data.slice(0, 200))}`,
    });
  }
}
