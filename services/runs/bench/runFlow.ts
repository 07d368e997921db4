// `npm run --silent bench -w services/runs` (after `npm run build`): runs through the gateway on the
// whole local stack (every service a process, the stand-in harnesses). Prints
//   - run starts/s: BENCH_STARTS (default 100) POST /runs at BENCH_CONCURRENCY (default 16), spread
//     over enough users that the run-start budget (10 a minute per user) never refuses one;
//   - the time from POST /runs to the first event and to `success` of BENCH_LATENCY_RUNS (default
//     10) runs one after another (polling GET /events every 10 ms), p50 and max;
//   - how long the burst took to finish (all `success`), as runs/s.
// KAFKA_BROKERS / MONGO_URL / REDIS_URL to use real servers instead of the local stand-ins.
import { randomBytes } from 'node:crypto';
import { startStack } from '@ars/stack';

const STARTS = Number(process.env.BENCH_STARTS ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const LATENCY_RUNS = Number(process.env.BENCH_LATENCY_RUNS ?? 10);
const PROMPT = '@say benchmark\n@shell true';

interface Envelope<T> {
  ok: boolean;
  data: T;
  error?: { code: string; message: string };
}

async function json<T>(url: string, init: RequestInit = {}): Promise<{ status: number; data: T }> {
  const response = await fetch(url, init);
  const body = (await response.json()) as Envelope<T>;
  if (!body.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${JSON.stringify(body.error)}`);
  return { status: response.status, data: body.data };
}

interface User {
  token: string;
  repoId: string;
}

async function newUser(baseUrl: string): Promise<User> {
  const account = (await json<{ sessionCookie: string; repos: { id: string }[] }>(`${baseUrl}/api/dev/accounts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).data;
  const created = (await json<{ token: string }>(`${baseUrl}/api/settings/api-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: account.sessionCookie },
    body: JSON.stringify({ name: 'bench' }),
  })).data;
  return { token: created.token, repoId: account.repos[0]?.id ?? '' };
}

function startRun(api: string, user: User): Promise<{ status: number; data: { runId: string } }> {
  return json(`${api}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${user.token}`, 'idempotency-key': randomBytes(8).toString('hex') },
    body: JSON.stringify({ repoId: user.repoId, prompt: PROMPT }),
  });
}

async function runState(api: string, user: User, runId: string): Promise<{ status: string; events: number }> {
  const { data } = await json<{ run: { status: string }; events: unknown[] }>(`${api}/runs/${runId}/events?limit=1`, { headers: { authorization: `Bearer ${user.token}` } });
  return { status: data.run.status, events: data.events.length };
}

const percentile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};

const stack = await startStack({
  gatewayPort: 0,
  kafkaBrokers: process.env.KAFKA_BROKERS,
  mongoUrl: process.env.MONGO_URL,
  redisUrl: process.env.REDIS_URL,
  logLevel: 'warn',
  output: () => undefined,
});
try {
  const api = `${stack.baseUrl}/api/v1/svc`;
  // Warm-up: one run to its end (consumer groups joined, code paths hot).
  const warm = await newUser(stack.baseUrl);
  const warmRun = (await startRun(api, warm)).data.runId;
  while ((await runState(api, warm, warmRun)).status !== 'success') await new Promise((resolve) => setTimeout(resolve, 50));

  // Latency: one run at a time.
  const firstEvent: number[] = [];
  const toSuccess: number[] = [];
  const latencyUser = await newUser(stack.baseUrl);
  for (let i = 0; i < LATENCY_RUNS; i += 1) {
    const t0 = performance.now();
    const { runId } = (await startRun(api, latencyUser)).data;
    let seenEvent = false;
    for (;;) {
      const state = await runState(api, latencyUser, runId);
      if (!seenEvent && state.events > 0) {
        seenEvent = true;
        firstEvent.push(performance.now() - t0);
      }
      if (state.status === 'success') break;
      if (state.status === 'failed' || state.status === 'cancelled') throw new Error(`run ${runId} ended ${state.status}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    toSuccess.push(performance.now() - t0);
  }

  // Throughput: a burst of starts, spread over users (10 starts a minute each).
  const users = await Promise.all(Array.from({ length: Math.ceil(STARTS / 10) }, () => newUser(stack.baseUrl)));
  const started: { user: User; runId: string }[] = [];
  let next = 0;
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
  const pendingRuns = new Set(started);
  let failed = 0;
  while (pendingRuns.size > 0) {
    for (const run of [...pendingRuns]) {
      const state = await runState(api, run.user, run.runId);
      if (state.status === 'success' || state.status === 'failed' || state.status === 'cancelled') {
        if (state.status !== 'success') failed += 1;
        pendingRuns.delete(run);
      }
    }
    if (pendingRuns.size > 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const finishSeconds = (performance.now() - t0) / 1000;

  const ms = (value: number): string => `${value.toFixed(0)} ms`;
  console.log(`runs through the gateway, local stack, stand-in harness (codex), Node ${process.version}`);
  console.log(`run starts: ${STARTS} at concurrency ${CONCURRENCY} in ${startSeconds.toFixed(2)} s = ${(STARTS / startSeconds).toFixed(1)} starts/s`);
  console.log(`burst finished: all ${STARTS} terminal after ${finishSeconds.toFixed(2)} s = ${(STARTS / finishSeconds).toFixed(1)} runs/s (${failed} not success)`);
  console.log(`POST /runs → first event (${LATENCY_RUNS} runs, one at a time): p50 ${ms(percentile(firstEvent, 0.5))}, max ${ms(Math.max(...firstEvent))}`);
  console.log(`POST /runs → success     (${LATENCY_RUNS} runs, one at a time): p50 ${ms(percentile(toSuccess, 0.5))}, max ${ms(Math.max(...toSuccess))}`);
} finally {
  await stack.stop();
}
