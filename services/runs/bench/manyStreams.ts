// `npm run --silent bench:streams -w services/runs` (after `npm run build`): many runs streaming at
// once, one watcher each, on the whole local stack (every service a process, the codex stand-in
// harness). BENCH_RUNS (default 50) runs start together, spread over users of BENCH_RUNS_PER_USER
// (5: the run-start budget is 10 a minute per user), each printing BENCH_RUN_EVENTS (300) `@say`
// lines with `@sleep BENCH_SPACING_MS` (10) between them, about 100 events/s each; the stack runs
// them all at once (SANDBOX_MAX_SESSIONS = BENCH_RUNS). Each run is read by one client through the
// Server-Sent Events stream, which must get every event once, in order, or the bench fails. Prints,
// per event, the client's receipt minus the event's `createdAt` (when the sandboxes service took it
// from the harness): p50, p99 and max over every event of every run, and the spread of each run's
// p99; and how many runs were printing at the same moment at the peak. Both clocks are this machine's.
// With its own stack on Linux, also the CPU each process spent per event while the runs went (from
// /proc, @ars/stack's cpuSnapshot: the sandboxes service's figure holds its sandboxes' git and harness
// processes), their sum, and the cores that sum means at 50 runs × 100 events/s: a figure that does not
// move with the machine's load the way the delays do.
// BENCH_BASE_URL to use a running system's gateway and start no stack (its own settings then apply).
import { loadavg } from 'node:os';
import { clockTicksPerSecond, cpuPerUnit, cpuSnapshot } from '@ars/stack';
import { checkWhole, newUser, percentile, readStream, sayText, startBenchStack, startRun, type Reading, type User, harnessLabel } from './client.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 50);
const RUNS_PER_USER = Number(process.env.BENCH_RUNS_PER_USER ?? 5);
const RUN_EVENTS = Number(process.env.BENCH_RUN_EVENTS ?? 300);
const SPACING_MS = Number(process.env.BENCH_SPACING_MS ?? 10);

interface Watched {
  runId: string;
  reading: Reading;
  /** Receipt minus `createdAt` of each `@say` event, ms. */
  delays: number[];
  /** The first and last `@say` event's `createdAt`: when the run was printing. */
  printing: [number, number];
}

/** One run started and read to its end through the stream, checked whole. */
async function watchedRun(api: string, user: User, index: number): Promise<Watched> {
  const tag = `run${index}`;
  const prompt = Array.from({ length: RUN_EVENTS }, (_, i) => `@say ${sayText(tag, i)}`).join(`\n@sleep ${SPACING_MS}\n`);
  const { runId } = (await startRun(api, user, prompt)).data;
  const reading = await readStream(api, user, runId);
  checkWhole(runId, reading, tag, RUN_EVENTS);
  const says = reading.received.filter(({ event }) => event.type === 'assistant_message');
  return {
    runId,
    reading,
    delays: says.map(({ event, receivedAt }) => receivedAt - Date.parse(event.createdAt)),
    printing: [Date.parse(says[0]!.event.createdAt), Date.parse(says.at(-1)!.event.createdAt)],
  };
}

/** The most runs printing at one moment (their [first, last] `createdAt` intervals overlapping). */
function peakOverlap(intervals: [number, number][]): number {
  const edges = intervals.flatMap(([start, end]) => [
    [start, 1],
    [end, -1],
  ]);
  edges.sort((a, b) => a[0]! - b[0]! || b[1]! - a[1]!);
  let now = 0;
  let peak = 0;
  for (const [, step] of edges) peak = Math.max(peak, (now += step!));
  return peak;
}

/** One short run read to its end (consumer groups joined, code paths hot), for checkWhole. */
async function warmUp(api: string, user: User): Promise<Parameters<typeof checkWhole>> {
  const { runId } = (await startRun(api, user, `@say ${sayText('warm', 0)}`)).data;
  return [runId, await readStream(api, user, runId), 'warm', 1];
}

/** The goal's load: 50 runs at 100 events/s each. */
const GOAL_EVENTS_PER_SECOND = 50 * 100;

/** CPU per event of each process (the stack's, then the bench client's), the stack's sum, and the cores it means at the goal's load. */
function printCpu(cpu: Map<string, number>, events: number): void {
  const { client = 0, ...stackCpu } = Object.fromEntries(cpu);
  const rows = Object.entries(stackCpu).sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, perEvent]) => sum + perEvent, 0);
  const figure = (perEvent: number): string => `${perEvent.toFixed(3)} ms`;
  console.log(
    `CPU per event (${events} events, every one the watchers got), by process: ${rows.map(([name, perEvent]) => `${name} ${figure(perEvent)}`).join(', ')}`,
  );
  console.log(
    `the stack's sum: ${figure(total)} of CPU per event, so ${((total * GOAL_EVENTS_PER_SECOND) / 1000).toFixed(1)} cores busy at ${GOAL_EVENTS_PER_SECOND} events/s (50 runs × 100/s); the bench's own client (the 50 watchers): ${figure(client)} more`,
  );
}

const stack = await startBenchStack(process.env, { SANDBOX_MAX_SESSIONS: String(RUNS), SANDBOX_MAX_LIVE_PER_USER: String(RUNS_PER_USER) });
try {
  const api = `${stack.baseUrl}/api/v1/svc`;
  const loadBefore = loadavg();
  const warm = await newUser(stack.baseUrl, 1);
  checkWhole(...(await warmUp(api, warm)));
  const users = await Promise.all(Array.from({ length: Math.ceil(RUNS / RUNS_PER_USER) }, () => newUser(stack.baseUrl, 2)));
  const ticksPerSecond = stack.ownStack ? clockTicksPerSecond() : undefined;
  const cpuBefore = ticksPerSecond ? cpuSnapshot(stack.pids(), ticksPerSecond) : null;
  const started = Date.now();
  const watched = await Promise.all(Array.from({ length: RUNS }, (_, i) => watchedRun(api, users[Math.floor(i / RUNS_PER_USER)]!, i)));
  const seconds = (Date.now() - started) / 1000;
  const events = watched.reduce((sum, { reading }) => sum + reading.received.length, 0);
  const cpu = cpuBefore && ticksPerSecond ? cpuPerUnit(cpuBefore, cpuSnapshot(stack.pids(), ticksPerSecond), events) : null;
  const loadAfter = loadavg();

  const all = watched.flatMap(({ delays }) => delays);
  const perRunP99 = watched.map(({ delays }) => percentile(delays, 0.99));
  const ms = (value: number): string => `${value.toFixed(0)} ms`;
  const load = (values: number[]): string => values.map((value) => value.toFixed(1)).join(' / ');
  const settings = stack.ownStack ? `SANDBOX_MAX_SESSIONS=${RUNS}, SANDBOX_MAX_LIVE_PER_USER=${RUNS_PER_USER}` : "the running system's settings";
  console.log(`${RUNS} runs streaming at once, one SSE watcher each, local stack, ${harnessLabel()}, Node ${process.version}`);
  console.log(
    `settings: ${users.length} users × ${RUNS_PER_USER} runs, ${settings}; ${RUN_EVENTS} @say per run with @sleep ${SPACING_MS} (about ${Math.round(1000 / (SPACING_MS + 1))} events/s each)`,
  );
  console.log(`machine load (1/5/15 min): ${load(loadBefore)} before, ${load(loadAfter)} after`);
  console.log(
    `every run whole, once, in order: ${all.length} @say events; ${peakOverlap(watched.map(({ printing }) => printing))} runs printing at once at the peak; all ended in ${seconds.toFixed(1)} s`,
  );
  console.log(
    `delay, harness output (createdAt) → SSE client, every event: p50 ${ms(percentile(all, 0.5))}, p99 ${ms(percentile(all, 0.99))}, max ${ms(Math.max(...all))}`,
  );
  console.log(`each run's p99 delay: best ${ms(Math.min(...perRunP99))}, median ${ms(percentile(perRunP99, 0.5))}, worst ${ms(Math.max(...perRunP99))}`);
  if (cpu) printCpu(cpu, events);
} finally {
  await stack.stop();
}
