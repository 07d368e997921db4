// `npm run --silent bench -w services/gateway` (after `npm run build`): an authenticated
// GET /api/v1/svc/repos through the gateway to the real catalog, beside a bare Koa handler returning
// the same JSON and a bare Koa proxy to that handler over undici (bareRepos.ts, each its own
// process), on the same machine, at the same concurrency, in the same run. Prints requests/s, p50,
// p99 and the ratios; with its own stack on Linux, also each process's CPU per request during the
// measured requests (@ars/stack's processCpu.ts), the figure to compare on a shared machine. The gateway is the
// whole local stack's (startBenchStack), or with BENCH_BASE_URL a running system's. BENCH_REQUESTS
// (default 20000) and BENCH_WARMUP (default 2000) requests to each, BENCH_CONCURRENCY (default 32);
// KAFKA_BROKERS / MONGO_URL / REDIS_URL to run the stack on real servers instead of the local stand-ins.
import { Agent, request } from 'node:http';
import { clockTicksPerSecond, cpuPerUnit, cpuSnapshot, freePort, fromRoot, startBenchStack, startChild, type ManagedChild } from '@ars/stack';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
/** Each PAT is used at most this often (the per-PAT limit is 60 per rolling 60 s). */
const USES_PER_TOKEN = 50;
const quiet = (): void => undefined;

interface Result {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  failures: number;
}

function get(agent: Agent, url: URL, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

async function load(url: string, count: number, headersFor: (i: number) => Record<string, string>): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const target = new URL(url);
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const i = next;
        next += 1;
        const t0 = process.hrtime.bigint();
        const status = await get(agent, target, headersFor(i));
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (status !== 200) failures += 1;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { requestsPerSecond: count / seconds, p50: at(0.5), p99: at(0.99), failures };
}

async function json<T>(url: string, init: RequestInit): Promise<T> {
  const response = await fetch(url, init);
  const body = (await response.json()) as { ok: boolean; data: T };
  if (!body.ok) throw new Error(`${url}: ${JSON.stringify(body)}`);
  return body.data;
}

const stack = await startBenchStack();
const children: ManagedChild[] = [];
/** Where CPU per request is measured: Linux, and the bench's own stack (the smoke form's running system has pids nobody knows). */
const ticksPerSecond = stack.ownStack ? clockTicksPerSecond() : undefined;
/** The stack's processes of the gateway's path, printed each; the rest of the stack is summed apart. */
const PATH_PROCESSES = ['gateway', 'catalog', 'mongo-dev', 'redis'];

interface Measured {
  result: Result;
  /** CPU ms per request by process; undefined where it is not measured. */
  cpu: Map<string, number> | undefined;
}

/** `load`, with the CPU per request of the bench (`client`) and of the processes named in `pids`. */
async function measure(pids: Record<string, number>, ...args: Parameters<typeof load>): Promise<Measured> {
  if (ticksPerSecond === undefined) return { result: await load(...args), cpu: undefined };
  const before = cpuSnapshot(pids, ticksPerSecond);
  const result = await load(...args);
  return { result, cpu: cpuPerUnit(before, cpuSnapshot(pids, ticksPerSecond), args[1]) };
}

function sumOf(cpu: Map<string, number>, names: readonly string[]): number {
  return names.reduce((total, name) => total + (cpu.get(name) ?? 0), 0);
}

/** `name 0.123` for each process, then the sum of those `summed` (the rest after it, not summed). */
function cpuRow(title: string, cpu: Map<string, number>, summed: readonly string[]): string {
  const parts = summed.map((name) => `${name} ${(cpu.get(name) ?? 0).toFixed(3)}`);
  const rest = [...cpu].filter(([name]) => !summed.includes(name)).reduce((total, [, ms]) => total + ms, 0);
  const restPart = cpu.size > summed.length ? `   (rest of the stack ${rest.toFixed(3)})` : '';
  return `${title.padEnd(24)} ${parts.join('  ')}   sum ${sumOf(cpu, summed).toFixed(3)}${restPart}`;
}

/** The CPU lines: per process and row, and the proxy's sum over the gateway's (what the throughput ratio tends to on a saturated machine). */
function printCpu(bare: Map<string, number>, proxy: Map<string, number>, gateway: Map<string, number>): void {
  const gatewayPath = ['client', ...PATH_PROCESSES];
  console.log('CPU per request during the measured requests (ms, utime+stime from /proc):');
  console.log(cpuRow('bare Koa handler', bare, ['client', 'bare']));
  console.log(cpuRow('bare Koa -> undici proxy', proxy, ['client', 'proxy', 'bare']));
  console.log(cpuRow('gateway (PAT + limit)', gateway, gatewayPath));
  console.log(`CPU ratio proxy/gateway (sums): ${(sumOf(proxy, ['client', 'proxy', 'bare']) / sumOf(gateway, gatewayPath)).toFixed(3)}x`);
}

/** bareRepos.ts in a process of its own; its origin and pid. */
async function startBare(name: string, env: Record<string, string> = {}): Promise<{ origin: string; pid: number }> {
  const port = await freePort();
  const child = startChild({
    name,
    command: process.execPath,
    args: [fromRoot('services/gateway/dist/bench/bareRepos.js')],
    env: { ...process.env, ...env, PORT: String(port) },
    output: quiet,
  });
  children.push(child);
  await child.waitForLine((line) => (line.startsWith('listening') ? true : undefined), 10_000);
  return { origin: `http://127.0.0.1:${port}`, pid: child.pid };
}

try {
  const bare = await startBare('bare');
  const proxy = await startBare('bare-proxy', { UPSTREAM_URL: bare.origin });
  const bareUrl = `${bare.origin}/api/v1/svc/repos`;
  const proxyUrl = `${proxy.origin}/api/v1/svc/repos`;
  const gatewayUrl = `${stack.baseUrl}/api/v1/svc/repos`;

  // A development account: a user with two repositories in the catalog, what the gateway answers.
  const account = await json<{ sessionCookie: string }>(`${stack.baseUrl}/api/dev/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  const warmTokenCount = Math.ceil(WARMUP / USES_PER_TOKEN);
  const tokenCount = warmTokenCount + Math.ceil(REQUESTS / USES_PER_TOKEN);
  const tokens: string[] = [];
  for (let i = 0; i < tokenCount; i += 1) {
    const created = await json<{ token: string }>(`${stack.baseUrl}/api/settings/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: account.sessionCookie },
      body: JSON.stringify({ name: `bench-${i}` }),
    });
    tokens.push(created.token);
  }
  const warmTokens = tokens.slice(0, warmTokenCount);
  const runTokens = tokens.slice(warmTokenCount);
  // Token i of a pool serves requests i, i + n, i + 2n …: at most USES_PER_TOKEN each.
  const authorization = (pool: string[]) => (i: number) => ({ authorization: `Bearer ${pool[i % pool.length] ?? ''}` });

  await load(bareUrl, WARMUP, () => ({}));
  await load(proxyUrl, WARMUP, () => ({}));
  await load(gatewayUrl, WARMUP, authorization(warmTokens));
  const bareMeasured = await measure({ bare: bare.pid }, bareUrl, REQUESTS, () => ({}));
  const proxyMeasured = await measure({ proxy: proxy.pid, bare: bare.pid }, proxyUrl, REQUESTS, () => ({}));
  const gatewayMeasured = await measure(stack.pids(), gatewayUrl, REQUESTS, authorization(runTokens));
  const [baseline, proxied, through] = [bareMeasured.result, proxyMeasured.result, gatewayMeasured.result];

  const row = (name: string, r: Result): string =>
    `${name.padEnd(24)} ${r.requestsPerSecond.toFixed(0).padStart(8)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms   non-200: ${r.failures}`;
  console.log(`GET /api/v1/svc/repos, ${REQUESTS} requests, concurrency ${CONCURRENCY}, Node ${process.version}`);
  console.log(row('bare Koa handler', baseline));
  console.log(row('bare Koa -> undici proxy', proxied));
  console.log(row('gateway (PAT + limit)', through));
  const ratio = (name: string, of: Result): string =>
    `ratio gateway/${name}: throughput ${(through.requestsPerSecond / of.requestsPerSecond).toFixed(3)}x, ` +
    `p50 ${(through.p50 / of.p50).toFixed(1)}x, p99 ${(through.p99 / of.p99).toFixed(1)}x`;
  console.log(ratio('bare', baseline));
  console.log(ratio('proxy', proxied));
  if (bareMeasured.cpu && proxyMeasured.cpu && gatewayMeasured.cpu) printCpu(bareMeasured.cpu, proxyMeasured.cpu, gatewayMeasured.cpu);
} finally {
  for (const child of children) await child.stop();
  await stack.stop();
}
