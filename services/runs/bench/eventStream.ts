// `npm run --silent bench:stream -w services/runs` (after `npm run build`): a run's events from the
// harness's output to a client reading them through the gateway, on the whole local stack (every
// service a process, the codex stand-in harness). Prints
//   - throughput: a run of BENCH_EVENTS (default 6000; the prompt stays under its 100,000 characters) `@say` lines, read by one client with the
//     Server-Sent Events stream (`Accept: text/event-stream`), then another such run read by paging
//     the JSON route with `after=<eventId>` (polling every BENCH_POLL_MS, default 200, while caught
//     up; at once while pages come back full): events/s at the client from its first event to its
//     last, and from the run's creation to the client holding every event. The client must get
//     every event exactly once, in order (ids `<runId>:event:0…`, the `@say` texts in the prompt's
//     order, `stream_started` first, `completed` last, the run `success`), or the bench fails;
//   - delay: a run of BENCH_SPACED_EVENTS (default 300) `@say` lines with `@sleep BENCH_SPACING_MS`
//     (default 20) between them, read with the stream: per `@say` event, the client's receive time
//     minus the event's `createdAt` (the moment the sandboxes service took it from the harness's
//     output, `emittedAt`), p50, p99, max. Both clocks are this machine's.
// KAFKA_BROKERS / MONGO_URL / REDIS_URL to use real servers instead of the local stand-ins;
// BENCH_BASE_URL to use a running system's gateway and start no stack (startBenchStack).
import { loadavg } from 'node:os';
import {
  checkWhole,
  json,
  newUser,
  percentile,
  readStream,
  sayText,
  startBenchStack,
  startRun,
  tokenOf,
  TERMINAL,
  type Reading,
  type Received,
  type Run,
  type RunEvent,
  type User,
  harnessLabel,
} from './client.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 6000);
const SPACED_EVENTS = Number(process.env.BENCH_SPACED_EVENTS ?? 300);
const SPACING_MS = Number(process.env.BENCH_SPACING_MS ?? 20);
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 200);
/** The runs service's largest page (CONTRACT.md, Limits). */
const PAGE = 200;

/** Every event by paging the JSON route with `after`: full pages at once, a poll every POLL_MS while caught up. */
async function readPages(api: string, user: User, runId: string): Promise<Reading> {
  const received: Received[] = [];
  let after: string | undefined;
  for (;;) {
    const query = `limit=${PAGE}${after ? `&after=${encodeURIComponent(after)}` : ''}`;
    const { data } = await json<{ run: Run; events: RunEvent[] }>(`${api}/runs/${runId}/events?${query}`, {
      headers: { authorization: `Bearer ${tokenOf(user)}` },
    });
    const receivedAt = Date.now();
    for (const event of data.events) received.push({ event, receivedAt });
    after = data.events.at(-1)?.id ?? after;
    if (data.events.length === PAGE) continue;
    if (TERMINAL.has(data.run.status)) return { run: data.run, received };
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

interface Throughput {
  events: number;
  /** events/s between the client's first and last event. */
  atClient: number;
  /** events/s from the run's creation to the client holding every event. */
  fromCreation: number;
  /** events/s between the first and last event's `createdAt`: the rate the sandboxes service took them from the harness. */
  emitted: number;
  /** s from the run's creation to the client holding every event. */
  seconds: number;
}

async function throughput(api: string, user: User, read: (api: string, user: User, runId: string) => Promise<Reading>, tag: string): Promise<Throughput> {
  const prompt = Array.from({ length: EVENTS }, (_, i) => `@say ${sayText(tag, i)}`).join('\n');
  const { runId } = (await startRun(api, user, prompt)).data;
  const reading = await read(api, user, runId);
  checkWhole(runId, reading, tag, EVENTS);
  const { received } = reading;
  const first = received[0] as Received;
  const last = received.at(-1) as Received;
  const events = received.length;
  const createdToLast = (last.receivedAt - Date.parse(reading.run.createdAt)) / 1000;
  return {
    events,
    atClient: perSecond(events - 1, last.receivedAt - first.receivedAt),
    fromCreation: perSecond(events, last.receivedAt - Date.parse(reading.run.createdAt)),
    emitted: perSecond(events - 1, Date.parse(last.event.createdAt) - Date.parse(first.event.createdAt)),
    seconds: createdToLast,
  };
}

/**
 * `count` per second over `ms`. The clocks here count whole milliseconds, so a span under one (every
 * event in one read, as a short smoke run's poll can get them) counts as one: a lower bound of the
 * rate, never Infinity.
 */
function perSecond(count: number, ms: number): number {
  return count / (Math.max(ms, 1) / 1000);
}

const stack = await startBenchStack();
try {
  const api = `${stack.baseUrl}/api/v1/svc`;
  const loadBefore = loadavg();
  // Warm-up: one short run read to its end (consumer groups joined, code paths hot).
  const warm = await newUser(stack.baseUrl, 3);
  const warmRun = (await startRun(api, warm, `@say ${sayText('warm', 0)}`)).data.runId;
  checkWhole(warmRun, await readStream(api, warm, warmRun), 'warm', 1);

  // Each phase its own user: fresh per-PAT budgets (60 requests a minute each) for the JSON paging.
  const viaStream = await throughput(api, await newUser(stack.baseUrl, 2), readStream, 'sse');
  const viaPages = await throughput(api, await newUser(stack.baseUrl), readPages, 'json');

  const delayUser = await newUser(stack.baseUrl, 2);
  const spaced = Array.from({ length: SPACED_EVENTS }, (_, i) => `@say ${sayText('delay', i)}`).join(`\n@sleep ${SPACING_MS}\n`);
  const delayRun = (await startRun(api, delayUser, spaced)).data.runId;
  const delayReading = await readStream(api, delayUser, delayRun);
  checkWhole(delayRun, delayReading, 'delay', SPACED_EVENTS);
  const says = delayReading.received.filter(({ event }) => event.type === 'assistant_message');
  const delays = says.map(({ event, receivedAt }) => receivedAt - Date.parse(event.createdAt));
  const gaps = says.slice(1).map(({ event }, i) => Date.parse(event.createdAt) - Date.parse((says[i] as Received).event.createdAt));
  const loadAfter = loadavg();

  const ms = (value: number): string => `${value.toFixed(0)} ms`;
  const load = (values: number[]): string => values.map((value) => value.toFixed(1)).join(' / ');
  const cell = (value: number): string => value.toFixed(0).padStart(8);
  const row = (name: string, t: Throughput): string =>
    `${name.padEnd(36)} ${String(t.events).padStart(6)} ${cell(t.atClient)} ${cell(t.fromCreation)} ${cell(t.emitted)} ${t.seconds.toFixed(2).padStart(8)}`;
  const tenth = Math.max(1, Math.floor(delays.length / 10));
  console.log(`a run's events from the harness to a client through the gateway, local stack, ${harnessLabel()}, Node ${process.version}`);
  console.log(`machine load (1/5/15 min): ${load(loadBefore)} before, ${load(loadAfter)} after`);
  console.log('throughput, one run (events/s: first→last event at the client | run created→all at the client | first→last createdAt; s: created→all)');
  console.log(`${''.padEnd(36)} ${'events'.padStart(6)} ${'client'.padStart(8)} ${'created'.padStart(8)} ${'emitted'.padStart(8)} ${'s'.padStart(8)}`);
  console.log(row(`SSE stream, ${EVENTS} @say`, viaStream));
  console.log(row(`JSON after=, ${EVENTS} @say, poll ${POLL_MS} ms`, viaPages));
  console.log(
    `delay, harness output (createdAt) → SSE client, ${says.length} @say with @sleep ${SPACING_MS} (createdAt gaps p50 ${ms(percentile(gaps, 0.5))}):` +
      ` p50 ${ms(percentile(delays, 0.5))}, p99 ${ms(percentile(delays, 0.99))}, max ${ms(Math.max(...delays))}, min ${ms(Math.min(...delays))};` +
      ` p50 of the first tenth ${ms(percentile(delays.slice(0, tenth), 0.5))}, of the last ${ms(percentile(delays.slice(-tenth), 0.5))}`,
  );
} finally {
  await stack.stop();
}
