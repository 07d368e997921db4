// runs.wait() and runs.follow() (README, "Waiting for a run", "Following a run live") against a
// stand-in that serves a run's events the way the gateway does, overlaps and dropped streams included.
import type { ServerResponse } from 'node:http';
import { ArsApiError, type ArsClientOptions, type FollowItem, type RunEvent } from '../src/index.js';
import { clientOf, eventOf, fail, ok, runOf, standInPerTest } from './standIn.js';

const current = standInPerTest();

const client = (options: Partial<ArsClientOptions> = {}) => clientOf(current(), options);
const events = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => eventOf(from + i));

describe('wait() polls the events, de-duplicates them by id, calls onEvent once per event in order, and stops at a terminal status', () => {
  test('overlapping pages: every event once, the after cursor is the last event seen, the terminal run', async () => {
    const pages = [
      { status: 'streaming', events: events(1, 2) },
      { status: 'streaming', events: [eventOf(2), eventOf(3)] },
      { status: 'success', events: [eventOf(3), eventOf(4)] },
    ];
    current().answer((_, res, n) => {
      const page = pages[n - 1] ?? pages[2]!;
      ok(res, 200, { run: runOf('run-1', page.status), events: page.events });
    });
    const called: string[] = [];
    const result = await client().runs.wait('run-1', { intervalMs: 10, onEvent: (event) => called.push(event.id) });
    expect(called).toEqual(['e1', 'e2', 'e3', 'e4']);
    expect(result.events.map((e) => e.id)).toEqual(['e1', 'e2', 'e3', 'e4']);
    expect(result.run.status).toBe('success');
    expect(current().received.map((r) => r.query.get('after'))).toEqual([null, 'e2', 'e3']);
    expect(current().received.every((r) => r.path === '/api/v1/svc/runs/run-1/events' && r.query.get('limit') === '200')).toBe(true);
  });

  test('a full page (200) of an ended run is followed by the next page with after before wait() resolves', async () => {
    current().answer((request, res) =>
      ok(res, 200, { run: runOf('run-1', 'failed'), events: request.query.get('after') === null ? events(1, 200) : events(201, 205) }),
    );
    const result = await client().runs.wait('run-1', { intervalMs: 10 });
    expect(result.events.map((e) => e.id)).toEqual(events(1, 205).map((e) => e.id));
    expect(current().received.map((r) => r.query.get('after'))).toEqual([null, 'e200']);
  });

  test('a run that does not end in time: ArsApiError code TIMEOUT, status 0', async () => {
    current().answer((_, res) => ok(res, 200, { run: runOf('run-1', 'streaming'), events: [] }));
    const error = await client()
      .runs.wait('run-1', { intervalMs: 20, timeoutMs: 200 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArsApiError);
    expect(error).toMatchObject({ code: 'TIMEOUT', status: 0 });
  });

  test('an unknown run is the NOT_FOUND of the envelope', async () => {
    current().answer((_, res) => fail(res, 404, 'NOT_FOUND', 'Run not found'));
    await expect(client().runs.wait('nope')).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404, requestId: 'req-1' });
  });
});

function sseHead(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
}
const eventFrame = (event: RunEvent | ReturnType<typeof eventOf>) => `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
const runFrame = (status: string) => `event: run\ndata: ${JSON.stringify(runOf('run-1', status))}\n\n`;

const collect = async (items: AsyncIterable<FollowItem>) => {
  const out: string[] = [];
  for await (const item of items) out.push(item.type === 'event' ? item.event.id : `run:${item.run.status}`);
  return out;
};

describe('follow() reads the live stream (Accept: text/event-stream) and ends once the run is terminal', () => {
  test('status frames, events with ids, heartbeats ignored, the end', async () => {
    current().answer((_, res) => {
      sseHead(res);
      res.end(runFrame('streaming') + eventFrame(eventOf(1)) + ': heartbeat\n\n' + eventFrame(eventOf(2)) + runFrame('success'));
    });
    expect(await collect(client().runs.follow('run-1'))).toEqual(['run:streaming', 'e1', 'e2', 'run:success']);
    expect(current().received[0]?.headers.accept).toBe('text/event-stream');
    expect(current().received[0]?.headers['last-event-id']).toBeUndefined();
  });

  test('lastEventId is sent as Last-Event-ID on the first request', async () => {
    current().answer((_, res) => {
      sseHead(res);
      res.end(eventFrame(eventOf(3)) + runFrame('cancelled'));
    });
    expect(await collect(client().runs.follow('run-1', { lastEventId: 'e2' }))).toEqual(['e3', 'run:cancelled']);
    expect(current().received[0]?.headers['last-event-id']).toBe('e2');
  });

  test('an unknown run is the NOT_FOUND of the envelope, before any frame', async () => {
    current().answer((_, res) => fail(res, 404, 'NOT_FOUND', 'Run not found'));
    await expect(collect(client().runs.follow('nope'))).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404, requestId: 'req-1' });
  });
});

describe('follow() resumes with Last-Event-ID after the connection drops mid-stream and yields every event once', () => {
  test('dropped after e2: the next request carries Last-Event-ID e2; an event or status sent again is not yielded again', async () => {
    current().answer((_, res, n) => {
      sseHead(res);
      if (n === 1) {
        // Half a frame, then the connection is cut.
        res.write(runFrame('streaming') + eventFrame(eventOf(1)) + eventFrame(eventOf(2)) + 'id: e3\nevent: assist');
        setTimeout(() => res.socket?.destroy(), 50);
        return;
      }
      res.end(runFrame('streaming') + eventFrame(eventOf(2)) + eventFrame(eventOf(3)) + eventFrame(eventOf(4)) + runFrame('success'));
    });
    expect(await collect(client().runs.follow('run-1'))).toEqual(['run:streaming', 'e1', 'e2', 'e3', 'e4', 'run:success']);
    expect(current().received.map((r) => r.headers['last-event-id'])).toEqual([undefined, 'e2']);
  });

  test('a stream that ends before the run does (the gateway restarting) is opened again', async () => {
    current().answer((_, res, n) => {
      sseHead(res);
      res.end(n === 1 ? runFrame('streaming') + eventFrame(eventOf(1)) : eventFrame(eventOf(2)) + runFrame('success'));
    });
    expect(await collect(client().runs.follow('run-1'))).toEqual(['run:streaming', 'e1', 'e2', 'run:success']);
    expect(current().received.map((r) => r.headers['last-event-id'])).toEqual([undefined, 'e1']);
  });

  test('an event: error frame ends that stream; the next one resumes after the last event', async () => {
    current().answer((_, res, n) => {
      sseHead(res);
      res.end(
        n === 1
          ? eventFrame(eventOf(1)) + `event: error\ndata: ${JSON.stringify({ code: 'SERVICE_UNAVAILABLE', message: 'resume' })}\n\n`
          : eventFrame(eventOf(2)) + runFrame('success'),
      );
    });
    expect(await collect(client().runs.follow('run-1'))).toEqual(['e1', 'e2', 'run:success']);
    expect(current().received.map((r) => r.headers['last-event-id'])).toEqual([undefined, 'e1']);
  });

  test('streams that keep ending with nothing new: given up after retry.maxAttempts, with the stream’s error', async () => {
    current().answer((_, res) => {
      sseHead(res);
      res.end(`event: error\ndata: ${JSON.stringify({ code: 'SERVICE_UNAVAILABLE', message: 'The run could not be read' })}\n\n`);
    });
    const follow = client({ retry: { maxAttempts: 2 } }).runs.follow('run-1');
    await expect(collect(follow)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: 'The run could not be read' });
    expect(current().received).toHaveLength(2);
  });
});
