// The push path of the run event stream (`@ars/run-signals`), on the shared system: runs announces
// each change of a run on Redis once it is stored, and a watcher that connected before the run's
// first event is woken by those announcements and gets every event once, in order, then the end.
// What a lost announcement costs, and a reconnection, are the package's tests; a gateway restarted
// mid-stream is ops/gracefulShutdown.restart's.
import { Redis } from 'ioredis';
import { runChannel } from '@ars/run-signals';
import { sharedSystem, testInfrastructure, waitFor } from '@ars/testenv';
import { bearer, dataOf } from '../support/accounts.js';
import { readEventStream, type SseFrame } from '../support/eventStream.js';
import { newRunsUser, type RunEvent, type RunsClient } from '../support/runs.js';

const system = sharedSystem();
const LONG = 120_000;

let runs: RunsClient;
let repoId: string;
let listener: Redis;

beforeAll(async () => {
  ({ runs, repoId } = await newRunsUser(system().baseUrl));
  listener = new Redis(testInfrastructure().redisUrl);
}, 60_000);

afterAll(() => listener.disconnect());

const eventsUrl = (runId: string) => `${runs.api}/runs/${encodeURIComponent(runId)}/events`;
const runEvents = (frames: SseFrame[]) => frames.filter((f) => f.event !== 'run').map((f) => JSON.parse(f.data) as RunEvent);
const statuses = (frames: SseFrame[]) => frames.filter((f) => f.event === 'run').map((f) => (JSON.parse(f.data) as { status: string }).status);

/** What the run was when read, each time runs announced it from now on: what a stream woken by the announcement reads. */
async function readOnEachAnnouncement(runId: string): Promise<{ reads(): Promise<Array<{ status: string; events: number }>>; stop(): void }> {
  const subscriber = listener.duplicate();
  const reads: Array<Promise<{ status: string; events: number }>> = [];
  subscriber.on('message', (channel: string) => {
    if (channel !== runChannel(runId)) return;
    reads.push(runs.events(runId).then((answer) => ({ status: dataOf(answer).run.status, events: dataOf(answer).events.length })));
  });
  await subscriber.subscribe(runChannel(runId));
  return { reads: () => Promise.all(reads), stop: () => subscriber.disconnect() };
}

describe('runs announces each change of a run on its Redis channel, once stored', () => {
  test(
    'a run of three lines: each change is announced after it is stored (once per batch of messages handled): a read on an announcement sees the events and the end',
    async () => {
      // The first line waits, so the listener is subscribed before anything happens to the run.
      const runId = (await runs.started({ repoId, prompt: '@sleep 1500\n@say one\n@say two\n@say three' })).runId;
      const announced = await readOnEachAnnouncement(runId);
      try {
        const { run, events } = await runs.waitFor(runId, (r) => r.status === 'success', 60_000);
        expect(run.status).toBe('success');
        // The end's announcement may still be on its way when a poll has seen it: a read it caused sees everything.
        await waitFor(`a read on an announcement that sees the run's ${events.length} events and its end`, async () =>
          (await announced.reads()).some((read) => read.status === 'success' && read.events === events.length),
        );
      } finally {
        announced.stop();
      }
    },
    LONG,
  );
});

describe('a watcher connected before the run’s first event gets every event once, in order, then the end', () => {
  test(
    'the stream opened while the run waits: every stored event streamed once, in order, the terminal status last',
    async () => {
      const runId = (await runs.started({ repoId, prompt: '@sleep 1500\n@say one\n@sleep 300\n@say two\n@say three' })).runId;
      const answer = await readEventStream(eventsUrl(runId), bearer(runs.token));
      expect(answer.status).toBe(200);
      const streamed = runEvents(answer.frames);
      const stored = dataOf(await runs.events(runId, 200)).events;
      expect(streamed).toEqual(stored);
      expect(streamed.filter((e) => e.type === 'assistant_message').map((e) => e.message)).toEqual(['one', 'two', 'three']);
      expect(statuses(answer.frames).at(-1)).toBe('success');
      expect(answer.frames.at(-1)?.event).toBe('run');
    },
    LONG,
  );
});
