import { PassThrough } from 'node:stream';
import { isTerminalRunStatus, type Run, type RunEvent } from '@ars/contract';
import { isAppError } from '@ars/errors';
import type { RunWatch } from '@ars/run-signals';
import type { RouterContext, RouterMiddleware } from '@ars/http-app';
import { HEARTBEAT, runEventFrame, runStatusFrame, streamErrorFrame, wantsEventStream } from '../domain/serverSentEvents.js';
import type { PublicRoute } from '../domain/routeTable.js';
import type { Gateway } from '../deps.js';
import { internalPath } from '../handlers/forwardToOwner.js';
import { principalOf } from '../auth/authenticateToken.js';

/**
 * How the stream reads the run: a page of up to 200 events after its cursor, each time runs announces
 * that the run changed (`@ars/run-signals`), and at the latest after the safety net's wait (an
 * announcement lost); every poll while announcements cannot reach it (no Redis, Redis down, not yet
 * subscribed).
 */
export const STREAM_TIMING = {
  pageSize: 200,
  pollMs: 200,
  safetyNetMs: 1_000,
  heartbeatMs: 15_000,
  /** Reads of the run failing for this long end the stream with an `error` event (the client resumes with Last-Event-ID). */
  failingForMs: 30_000,
  /** One stream lasts at most this long; the client resumes with Last-Event-ID. */
  maxStreamMs: 3_600_000,
} as const;

interface EventsPage {
  run: Run;
  events: RunEvent[];
}

/**
 * `GET /runs/{runId}/events` with `Accept: text/event-stream`: the run's events as Server-Sent
 * Events, read from the owner (runs) page after page with `after`, so none is skipped or repeated:
 * each run event with its id, the run's status at the start and on every change as `event: run`,
 * heartbeat comments while quiet, the end once the run is terminal and its last events are sent.
 * `Last-Event-ID` (or `after`) resumes after that event; one that is not an event of the run is 400,
 * as is any failure before the stream starts (the JSON envelope). Without that Accept, the JSON route.
 */
export function runEventsRoute(gateway: Gateway, route: PublicRoute, json: RouterMiddleware): RouterMiddleware {
  return async (ctx, next) => {
    if (!wantsEventStream(ctx.get('Accept'))) return json(ctx, next);
    const path = internalPath(route, principalOf(ctx.state).userId, ctx.params);
    const resumeFrom = (typeof ctx.query.after === 'string' ? ctx.query.after : undefined) ?? (ctx.get('Last-Event-ID') || undefined);
    const read = (after: string | undefined, signal?: AbortSignal) =>
      gateway.peers.runs.request<EventsPage>('GET', path, {
        query: { limit: String(STREAM_TIMING.pageSize), ...(after ? { after } : {}) },
        ...(signal ? { signal } : {}),
      });
    // Watching before the first read: whatever the run does after that read is announced, or read
    // once the subscription is confirmed (the watch is poked then).
    const watch = gateway.runSignals.watch(ctx.params.runId ?? '');
    // The first page before any header: a 404 or a bad Last-Event-ID answers in the envelope.
    let first: EventsPage;
    try {
      first = await read(resumeFrom);
    } catch (error) {
      watch.close();
      throw error;
    }
    const stream = new PassThrough();
    ctx.status = 200;
    ctx.type = 'text/event-stream';
    ctx.set('Cache-Control', 'no-cache, no-transform');
    ctx.set('X-Accel-Buffering', 'no');
    ctx.body = stream;
    const stopped = new AbortController();
    ctx.req.on('close', () => stopped.abort());
    stream.on('close', () => stopped.abort());
    void pump(gateway, ctx, stream, first, resumeFrom, (after) => read(after, stopped.signal), stopped.signal, watch).finally(() => watch.close());
  };
}

async function pump(
  gateway: Gateway,
  ctx: RouterContext,
  stream: PassThrough,
  first: EventsPage,
  resumeFrom: string | undefined,
  read: (after: string | undefined) => Promise<EventsPage>,
  stopped: AbortSignal,
  watch: RunWatch,
): Promise<void> {
  const started = Date.now();
  let cursor = resumeFrom;
  let status: string | undefined;
  let lastWrite = Date.now();
  let failingSince: number | undefined;
  let page: EventsPage | undefined = first;
  const write = (frame: string) => {
    if (!stopped.aborted) stream.write(frame);
    lastWrite = Date.now();
  };
  try {
    while (!stopped.aborted) {
      if (page) {
        failingSince = undefined;
        for (const event of page.events) {
          write(runEventFrame(event));
          cursor = event.id;
        }
        if (page.run.status !== status) {
          status = page.run.status;
          write(runStatusFrame(page.run));
        }
        // Terminal, and this page was not full: every event the run will have has been sent.
        if (isTerminalRunStatus(page.run.status) && page.events.length < STREAM_TIMING.pageSize) break;
        if (page.events.length === STREAM_TIMING.pageSize) {
          page = await readOrUndefined(gateway, ctx, read, cursor);
          continue;
        }
      }
      if (Date.now() - started >= STREAM_TIMING.maxStreamMs || serverClosing(ctx)) break;
      if (failingSince !== undefined && Date.now() - failingSince >= STREAM_TIMING.failingForMs) {
        write(streamErrorFrame('SERVICE_UNAVAILABLE', 'The run could not be read; resume with Last-Event-ID'));
        break;
      }
      await watch.changeOrTimeout(watch.live ? STREAM_TIMING.safetyNetMs : STREAM_TIMING.pollMs, stopped);
      if (Date.now() - lastWrite >= STREAM_TIMING.heartbeatMs) write(HEARTBEAT);
      page = await readOrUndefined(gateway, ctx, read, cursor);
      if (!page && failingSince === undefined) failingSince = Date.now();
    }
  } finally {
    stream.end();
  }
}

/**
 * The gateway is shutting down (its server stopped listening): the stream ends at once instead of
 * holding the graceful shutdown until its deadline; the client resumes with Last-Event-ID elsewhere.
 */
function serverClosing(ctx: RouterContext): boolean {
  return (ctx.req.socket as { server?: { listening?: boolean } }).server?.listening === false;
}

/** A read that failed mid-stream is retried on the next poll (no envelope can be sent any more). */
async function readOrUndefined(
  gateway: Gateway,
  ctx: RouterContext,
  read: (after: string | undefined) => Promise<EventsPage>,
  cursor: string | undefined,
): Promise<EventsPage | undefined> {
  try {
    return await read(cursor);
  } catch (error) {
    if (ctx.req.destroyed) return undefined;
    gateway.logger.warn({ err: isAppError(error) ? { code: error.code, message: error.message } : error }, 'run event stream: read failed');
    return undefined;
  }
}
