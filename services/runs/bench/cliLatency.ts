// `npm run --silent bench:clis -w services/runs` (after `npm run build`): what a real agent CLI costs
// a run. The whole local stack twice — first with the stand-in CLIs (HARNESS_CLIS=stand-in), then
// with the bundled real CLIs (codex 0.163, Claude Code 2.1.330) against the model stand-in — and
// for each harness, BENCH_LATENCY_RUNS (default 10) runs of one prompt one after another, timed on
// the server's own clock (the run's `createdAt`, its first event's `createdAt`, its `updatedAt`
// once `success`): run created → first event and → success, p50 and max. The first run of each
// harness is a warm-up, not counted. With BENCH_BASE_URL, only the running system is measured (its
// CLIs, named by the runs' `runtime.provider`), as the CI smoke form does.
import { json, newUser, percentile, readEventStream, startBenchStack, startRun, tokenOf, type User } from './client.js';

const LATENCY_RUNS = Number(process.env.BENCH_LATENCY_RUNS ?? 10);
const PROMPT = '@say benchmark\n@shell true';
const HARNESSES = ['codex', 'claude-code'] as const;

interface Ended {
  status: string;
  provider: string;
  firstEventMs: number;
  successMs: number;
}

async function ranToTheEnd(api: string, user: User, harness: string): Promise<Ended> {
  const { status, data } = await startRun(api, user, PROMPT, harness);
  if (status !== 202) throw new Error(`POST /runs answered ${status}`);
  // The stream ends when the run does: waiting on it costs one request, where polling a slow run
  // would spend the PAT's 60 requests a minute (the figures are the server's clock either way).
  await readEventStream(`${api}/runs/${data.runId}/events`, tokenOf(user), () => undefined);
  const answer = await json<{
    run: { status: string; createdAt: string; updatedAt: string; runtime: { provider: string }; error: unknown };
    events: { createdAt: string }[];
  }>(`${api}/runs/${data.runId}/events?limit=1`, { headers: { authorization: `Bearer ${tokenOf(user)}` } });
  const run = answer.data.run;
  const created = Date.parse(run.createdAt);
  const first = answer.data.events[0]?.createdAt;
  if (run.status !== 'success' || first === undefined) throw new Error(`run ${data.runId} (${harness}) ended ${run.status}: ${JSON.stringify(run.error)}`);
  return { status: run.status, provider: run.runtime.provider, firstEventMs: Date.parse(first) - created, successMs: Date.parse(run.updatedAt) - created };
}

/** One system's figures: each harness's runs, one at a time, after one warm-up run. */
async function measure(baseUrl: string): Promise<void> {
  const api = `${baseUrl}/api/v1/svc`;
  for (const harness of HARNESSES) {
    // A user of its own for each run: a user may start 10 runs a minute. Not timed (server clock).
    const warm = await ranToTheEnd(api, await newUser(baseUrl, 1), harness);
    const runs: Ended[] = [];
    for (let i = 0; i < LATENCY_RUNS; i += 1) runs.push(await ranToTheEnd(api, await newUser(baseUrl, 1), harness));
    const clis = warm.provider.endsWith('/stand-in') ? 'stand-in CLI' : 'real CLI   ';
    const figures = (values: number[]): string => `p50 ${percentile(values, 0.5).toFixed(0)} ms, max ${Math.max(...values).toFixed(0)} ms`;
    const label = `${clis} ${harness.padEnd(11)} (${LATENCY_RUNS} runs)`;
    console.log(`${label}  run created → first event: ${figures(runs.map((run) => run.firstEventMs))}`);
    console.log(`${label}  run created → success:     ${figures(runs.map((run) => run.successMs))}`);
  }
}

console.log(`run latency by harness CLI, local stack, one run at a time, Node ${process.version}`);
for (const kind of process.env.BENCH_BASE_URL ? [undefined] : (['stand-in', 'real'] as const)) {
  const stack = await startBenchStack(kind === undefined ? process.env : { ...process.env, HARNESS_CLIS: kind });
  try {
    await measure(stack.baseUrl);
  } finally {
    await stack.stop();
  }
}
