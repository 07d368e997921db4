// Every event of a run readable, on the whole stack through the gateway: `after=<eventId>` pages
// through any number of events (a run of 500 `@say` lines read in full), and the live stream
// (`Accept: text/event-stream`) gives every event in order and the terminal status, and resumes a
// dropped connection with Last-Event-ID with no gap and no duplicate.
import { bearer, dataOf, errorOf } from '../support/accounts.js';
import { readEventStream, type SseFrame } from '../support/eventStream.js';
import { newRunsUser, type RunEvent, type RunsClient } from '../support/runs.js';
import { sharedSystem } from '@ars/testenv';

const system = sharedSystem();
const SAYS = 500;
const LONG = 300_000;

let runs: RunsClient;
let repoId: string;
let longRunId: string;
let allEvents: RunEvent[];

beforeAll(async () => {
  ({ runs, repoId } = await newRunsUser(system().baseUrl));
  const prompt = Array.from({ length: SAYS }, (_, i) => `@say line ${i + 1}`).join('\n');
  longRunId = (await runs.started({ repoId, prompt })).runId;
}, 60_000);

const eventsUrl = (runId: string, query = '') => `${runs.api}/runs/${encodeURIComponent(runId)}/events${query}`;

/** Every event of the run, page after page with `after`, once it has ended. */
async function readAllWithAfter(runId: string): Promise<{ events: RunEvent[]; pages: number }> {
  const events: RunEvent[] = [];
  let pages = 0;
  for (;;) {
    const after = events.at(-1)?.id;
    const page = dataOf(await runs.eventsAfter(runId, after, 200));
    pages += 1;
    events.push(...page.events);
    if (page.events.length === 0) return { events, pages };
  }
}

describe('after=<eventId> returns the events after that one, oldest first, limit as today', () => {
  test(
    `a run of ${SAYS} @say lines is read in full: every line once, in order`,
    async () => {
      await runs.waitFor(longRunId, undefined, LONG);
      const { events, pages } = await readAllWithAfter(longRunId);
      allEvents = events;
      const said = events.filter((e) => e.type === 'assistant_message' && /^line \d+$/.test(e.message ?? '')).map((e) => e.message);
      expect(said).toEqual(Array.from({ length: SAYS }, (_, i) => `line ${i + 1}`));
      expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
      expect(pages).toBeGreaterThanOrEqual(4);
    },
    LONG,
  );

  test('without after the answer is exactly today’s: the first page', async () => {
    const first = dataOf(await runs.events(longRunId, 200));
    expect(first.events).toEqual(allEvents.slice(0, 200));
  });

  test('an after that is not an event of the run is 400', async () => {
    const answer = await runs.eventsAfter(longRunId, 'not-an-event', 10);
    expect(answer.status).toBe(400);
    expect(errorOf(answer)).toMatchObject({ code: 'BAD_REQUEST' });
    expect(errorOf(answer).message).toContain('not an event of this run');
  });

  test("an id of the run's own form past its last event, or another run's event id, is 400 too (never an empty page)", async () => {
    const last = allEvents.at(-1)!.id;
    const pastTheEnd = last.replace(/:event:(\d+)$/, (_, seq: string) => `:event:${Number(seq) + 1}`);
    expect(pastTheEnd).not.toBe(last);
    const other = (await runs.started({ repoId, prompt: '@say another run' })).runId;
    for (const after of [pastTheEnd, allEvents[0]!.id.replace(longRunId, other)]) {
      const answer = await runs.eventsAfter(longRunId, after, 10);
      expect(answer.status).toBe(400);
      expect(errorOf(answer).message).toContain('not an event of this run');
    }
    // The last event itself is an event of the run: an empty page, not a 400.
    expect(dataOf(await runs.eventsAfter(longRunId, last, 10)).events).toEqual([]);
  });
});

const runEvents = (frames: SseFrame[]) => frames.filter((f) => f.event !== 'run').map((f) => JSON.parse(f.data) as RunEvent);
const statuses = (frames: SseFrame[]) => frames.filter((f) => f.event === 'run').map((f) => (JSON.parse(f.data) as { status: string }).status);

describe('Accept: text/event-stream answers Server-Sent Events: each run event with its id and type, status changes as event: run, the end after the terminal status', () => {
  test(
    'a live run: every event in order, then its terminal status, then the stream ends',
    async () => {
      const prompt = ['@say one', '@sleep 1500', '@shell echo two', '@say three'].join('\n');
      const runId = (await runs.started({ repoId, prompt })).runId;
      const answer = await readEventStream(eventsUrl(runId), bearer(runs.token));
      expect(answer.status).toBe(200);
      expect(answer.contentType).toMatch(/^text\/event-stream/);
      const streamed = runEvents(answer.frames);
      const stored = dataOf(await runs.events(runId, 200)).events;
      expect(streamed).toEqual(stored);
      for (const frame of answer.frames.filter((f) => f.event !== 'run')) {
        const event = JSON.parse(frame.data) as RunEvent;
        expect([frame.id, frame.event]).toEqual([event.id, event.type]);
      }
      expect(answer.frames.filter((f) => f.event === 'run').every((f) => f.id === undefined)).toBe(true);
      expect(statuses(answer.frames).at(-1)).toBe('success');
      expect(answer.frames.at(-1)?.event).toBe('run');
    },
    LONG,
  );

  test(
    `a dropped connection resumed with Last-Event-ID: no gap, no duplicate (the ${SAYS}-line run)`,
    async () => {
      const first = await readEventStream(eventsUrl(longRunId), bearer(runs.token), (_frame, frames) => runEvents(frames).length === 250);
      const seen = runEvents(first.frames);
      expect(seen).toHaveLength(250);
      const resumed = await readEventStream(eventsUrl(longRunId), { ...bearer(runs.token), 'last-event-id': seen.at(-1)?.id ?? '' });
      expect([...seen, ...runEvents(resumed.frames)]).toEqual(allEvents);
      expect(statuses(resumed.frames)).toEqual(['success']);
    },
    LONG,
  );

  test(
    'after= resumes the same way as Last-Event-ID',
    async () => {
      const resumed = await readEventStream(eventsUrl(longRunId, `?after=${encodeURIComponent(allEvents[99]?.id ?? '')}`), bearer(runs.token));
      expect(runEvents(resumed.frames)).toEqual(allEvents.slice(100));
    },
    LONG,
  );

  test('errors before the stream starts answer in the JSON envelope: a Last-Event-ID not of the run 400, an unknown run 404', async () => {
    const bad = await readEventStream(eventsUrl(longRunId), { ...bearer(runs.token), 'last-event-id': 'nope' });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    const unknown = await readEventStream(eventsUrl('run_unknown'), bearer(runs.token));
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });
});
