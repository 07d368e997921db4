// The push path of the run event stream (`@ars/run-signals`), on the shared system: runs announces
// each change of a run on Redis once it is stored, and a watcher that connected before the run's
// first event is woken by those announcements and gets every event once, in order, then the end.
// What a lost announcement costs, and a reconnection, are the package's tests; a gateway restarted
// mid-stream is ops/gracefulShutdown.restart's.
import { Redis } from 'ioredis';
import { runChannel } from '@ars/run-signals';
import { sharedSystem, testInfrastructure } from '@ars/testenv';
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

/** Counts the announcements of one run on its channel from now on. */
async function countAnnouncements(runId: string): Promise<{ count(): number; stop(): Promise<void> }> {
  const subscriber = listener.duplicate();
  let count = 0;
  subscriber.on('message', (channel: string) => {
    if (channel === runChannel(runId)) count += 1;
  });
  await subscriber.subscribe(runChannel(runId));
  return {
    count: () => count,
    stop: async () => {
      subscriber.disconnect();
    },
  };
}

describe('runs announces each change of a run on its Redis channel, once stored', () => {
  test(
    'a run of three lines: at least one announcement per stored event, and the run’s end among them',
    async () => {
      // The first line waits, so the listener is subscribed before anything happens to the run.
      const runId = (await runs.started({ repoId, prompt: '@sleep 1500\n@say one\n@say two\n@say three' })).runId;
      const announcements = await countAnnouncements(runId);
      try {
        const { run, events } = await runs.waitFor(runId, (r) => r.status === 'success', 60_000);
        expect(run.status).toBe('success');
        // Each stored event, the sandbox's allocation and the run's end are announced.
        expect(announcements.count()).toBeGreaterThanOrEqual(events.length + 1);
      } finally {
        await announcements.stop();
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
