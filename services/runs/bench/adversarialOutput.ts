// `npm run --silent bench:adversarial -w services/runs` (after `npm run build`): on the whole local
// stack, while one tenant's run prints 4 × 250 KB of adversarial text
// (`@shell yes TOKEN | head -c 250000 | tr -d '\n'` four times: one 250 KB word, the input that
// stalled runs' event loop for seconds), another tenant's GET /runs/{runId} latency, p50 and max,
// beside the same request on the idle stack. BENCH_SAMPLES (default 40) idle requests;
// BENCH_ADVERSARIAL_BYTES (default 250000) the size of each of the four words.
// BENCH_BASE_URL to use a running system's gateway and start no stack (startBenchStack).
import { json, newUser, percentile, startBenchStack, startRun as startRunWith, tokenOf, type User, harnessLabel } from './client.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 40);
const ADVERSARIAL_BYTES = Number(process.env.BENCH_ADVERSARIAL_BYTES ?? 250_000);
const ADVERSARIAL = Array.from({ length: 4 }, () => `@shell yes TOKEN | head -c ${ADVERSARIAL_BYTES} | tr -d '\\n'`).join('\n');
const TERMINAL = new Set(['success', 'failed', 'cancelled']);

const startRun = async (api: string, user: User, prompt: string): Promise<string> => (await startRunWith(api, user, prompt)).data.runId;

async function status(api: string, user: User, runId: string): Promise<string> {
  return (await json<{ run: { status: string } }>(`${api}/runs/${runId}`, { headers: { authorization: `Bearer ${tokenOf(user)}` } })).data.run.status;
}

async function untilTerminal(api: string, user: User, runId: string): Promise<string> {
  for (;;) {
    const now = await status(api, user, runId);
    if (TERMINAL.has(now)) return now;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** One GET /runs/{runId}, in ms. */
async function timedGet(api: string, user: User, runId: string): Promise<number> {
  const t0 = performance.now();
  await status(api, user, runId);
  return performance.now() - t0;
}

const stack = await startBenchStack();
try {
  const api = `${stack.baseUrl}/api/v1/svc`;
  const reader = await newUser(stack.baseUrl);
  const writer = await newUser(stack.baseUrl);
  const readRun = await startRun(api, reader, '@say hello');
  await untilTerminal(api, reader, readRun);

  const idle: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    idle.push(await timedGet(api, reader, readRun));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  // The reader's 10 PATs allow 10 requests a second: one every 150 ms stays within them.
  const during: number[] = [];
  const t0 = performance.now();
  const writeRun = await startRun(api, writer, ADVERSARIAL);
  let ended: string | null = null;
  const watch = untilTerminal(api, writer, writeRun).then((final) => {
    ended = final;
  });
  while (ended === null) {
    during.push(await timedGet(api, reader, readRun));
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  await watch;
  const seconds = (performance.now() - t0) / 1000;

  const ms = (value: number): string => `${value.toFixed(0)} ms`;
  console.log(`another tenant's GET /runs/{runId} through the gateway, local stack, ${harnessLabel()}, Node ${process.version}`);
  console.log(`idle stack                        (${idle.length} requests): p50 ${ms(percentile(idle, 0.5))}, max ${ms(Math.max(...idle))}`);
  console.log(
    `during 4 × ${ADVERSARIAL_BYTES / 1000} KB adversarial run (${during.length} requests): p50 ${ms(percentile(during, 0.5))}, max ${ms(Math.max(...during))}; the run ended ${ended} in ${seconds.toFixed(1)} s`,
  );
} finally {
  await stack.stop();
}
