// `npm run --silent bench -w services/runs` (after `npm run build`): runs through the gateway on the
// whole local stack (every service a process, the stand-in harnesses). Prints
//   - run starts/s: BENCH_STARTS (default 100) POST /runs at BENCH_CONCURRENCY (default 16), spread
//     over enough users that the run-start budget (10 a minute per user) never refuses one;
//   - the time from POST /runs to the first event and to `success` of BENCH_LATENCY_RUNS (default
//     10) runs one after another, p50 and max: measured on the server's own clock (the run's
//     `createdAt`, its first event's `createdAt`, its `updatedAt` once `success`), so polling (which
//     the per-PAT limit keeps slow) adds nothing to the figures;
//   - how long the burst took to finish (all `success`), as runs/s.
// KAFKA_BROKERS / MONGO_URL / REDIS_URL to use real servers instead of the local stand-ins;
// BENCH_BASE_URL to use a running system's gateway and start no stack (startBenchStack).
import { json, newUser, percentile, startBenchStack, startRun as startRunWith, tokenOf, type User, harnessLabel } from './client.js';

const STARTS = Number(process.env.BENCH_STARTS ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const LATENCY_RUNS = Number(process.env.BENCH_LATENCY_RUNS ?? 10);
const PROMPT = '@say benchmark\n@shell true';

const startRun = (api: string, user: User) => startRunWith(api, user, PROMPT);

interface RunState {
  status: string;
  /** The run's error when it failed (so a bench that stops on one says why). */
  error: string | null;
  createdAt: string;
  updatedAt: string;
  firstEventAt: string | null;
}

async function runState(api: string, user: User, runId: string): Promise<RunState> {
  const { data } = await json<{ run: { status: string; error: string | null; createdAt: string; updatedAt: string }; events: { createdAt: string }[] }>(
    `${api}/runs/${runId}/events?limit=1`,
    { headers: { authorization: `Bearer ${tokenOf(user)}` } },
  );
  return {
    status: data.run.status,
    error: data.run.error,
    createdAt: data.run.createdAt,
    updatedAt: data.run.updatedAt,
    firstEventAt: data.events[0]?.createdAt ?? null,
  };
}

const TERMINAL = new Set(['success', 'failed', 'cancelled']);

async function untilTerminal(api: string, user: User, runId: string, pollMs: number): Promise<RunState> {
  for (;;) {
    const state = await runState(api, user, runId);
    if (TERMINAL.has(state.status)) return state;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

const stack = await startBenchStack();
try {
  const api = `${stack.baseUrl}/api/v1/svc`;
  // Warm-up: one run to its end (consumer groups joined, code paths hot).
  const warm = await newUser(stack.baseUrl, 3);
  await untilTerminal(api, warm, (await startRun(api, warm)).data.runId, 250);

  // Latency: one run at a time, on the server's clock.
  const firstEvent: number[] = [];
  const toSuccess: number[] = [];
  const postLatency: number[] = [];
  const latencyUser = await newUser(stack.baseUrl);
  for (let i = 0; i < LATENCY_RUNS; i += 1) {
    const t0 = performance.now();
    const { runId } = (await startRun(api, latencyUser)).data;
    postLatency.push(performance.now() - t0);
    const state = await untilTerminal(api, latencyUser, runId, 250);
    if (state.status !== 'success' || state.firstEventAt === null)
      throw new Error(`run ${runId} ended ${state.status}${state.error ? `: ${state.error}` : ''}`);
    const created = Date.parse(state.createdAt);
    firstEvent.push(Date.parse(state.firstEventAt) - created);
    toSuccess.push(Date.parse(state.updatedAt) - created);
  }

  // Throughput: a burst of starts, spread over users (10 starts a minute each).
  const users = await Promise.all(Array.from({ length: Math.ceil(STARTS / 10) }, () => newUser(stack.baseUrl)));
  const started: { user: User; runId: string }[] = [];
  let next = 0;
  const wallStart = Date.now();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < STARTS) {
        const i = next;
        next += 1;
        const user = users[Math.floor(i / 10)] as User;
        const answer = await startRun(api, user);
        if (answer.status !== 202) throw new Error(`start answered ${answer.status}`);
        started.push({ user, runId: answer.data.runId });
      }
    }),
  );
  const startSeconds = (performance.now() - t0) / 1000;
  let failed = 0;
  let lastEnd = 0;
  const byUser = new Map<User, string[]>();
  for (const run of started) byUser.set(run.user, [...(byUser.get(run.user) ?? []), run.runId]);
  await Promise.all(
    [...byUser].map(async ([user, runIds]) => {
      for (const runId of runIds) {
        const state = await untilTerminal(api, user, runId, 1_000);
        if (state.status !== 'success') failed += 1;
        lastEnd = Math.max(lastEnd, Date.parse(state.updatedAt));
      }
    }),
  );
  const finishSeconds = (lastEnd - wallStart) / 1000;

  const ms = (value: number): string => `${value.toFixed(0)} ms`;
  console.log(`runs through the gateway, local stack, ${harnessLabel()}, Node ${process.version}`);
  console.log(`run starts: ${STARTS} at concurrency ${CONCURRENCY} in ${startSeconds.toFixed(2)} s = ${(STARTS / startSeconds).toFixed(1)} starts/s`);
  console.log(
    `burst finished: the last of ${STARTS} terminal ${finishSeconds.toFixed(2)} s after the first POST = ${(STARTS / finishSeconds).toFixed(1)} runs/s (${failed} not success)`,
  );
  console.log(`POST /runs answered (202)  (${LATENCY_RUNS} runs, one at a time): p50 ${ms(percentile(postLatency, 0.5))}, max ${ms(Math.max(...postLatency))}`);
  console.log(`run created → first event  (same runs, server clock):        p50 ${ms(percentile(firstEvent, 0.5))}, max ${ms(Math.max(...firstEvent))}`);
  console.log(`run created → success      (same runs, server clock):        p50 ${ms(percentile(toSuccess, 0.5))}, max ${ms(Math.max(...toSuccess))}`);
} finally {
  await stack.stop();
}
