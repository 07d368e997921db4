// Benchmarks that never run rot (issue 35): every `bench` / `bench:*` script of every workspace runs
// here in its smoke form — the built file the script runs, with tiny counts — so a broken benchmark
// fails the test run. The stack benchmarks use the running system (BENCH_BASE_URL, read by
// startBenchStack) and start none of their own; the others run in their own process as they are.
// Their full forms stay the scripts whose figures the READMEs quote. `npm run build` first.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot, repoRoot } from '@ars/stack';
import { commandLineOf, descendantsOf } from '../support/processTree.js';
import { sharedSystem } from '@ars/testenv';

const system = sharedSystem();

interface Smoke {
  /** `<workspace> <script>`, as `npm run <script> -w <workspace>` names it. */
  script: string;
  /** The built file the script runs, from the repository root. */
  file: string;
  args?: string[];
  /** The tiny counts. */
  env: Record<string, string>;
  /** Given the running system's gateway as BENCH_BASE_URL; else it needs no stack. */
  againstSystem: boolean;
  /**
   * Every line it prints to stdout, as templates: `{n}` a number not below 0 (a count, a time, a
   * rate), `{±n}` one of either sign (a difference), `{text}` any text, a run of spaces any run of
   * spaces. Each template must match a line and each line a template, so a figure that is missing,
   * negative, `NaN` or `Infinity`, or a failure count other than the 0 written here, fails the test.
   */
  lines: string[];
}

const SMOKES: Smoke[] = [
  {
    script: 'shared/sanitize bench',
    file: 'shared/sanitize/dist/bench/sanitize.bench.js',
    env: { BENCH_SCALE: '0.01' },
    againstSystem: false,
    lines: [
      '@ars/sanitize, Node {text}',
      'redactSecrets over the whole string (ms per MB, at {n} KB and at {n} KB: linear when equal):',
      '{text} {n} ms/MB at {n} KB, {n} ms/MB at {n} KB',
      'sanitizeText (cap 2,000) of a {n} KB string, as one event string (ms):',
      '{text} {n} ms',
      'the former assignment pattern on `yes TOKEN` text (ms; x4 the size costs ~x16):',
      '{n} KB: {n} ms; now {n} ms',
    ],
  },
  {
    script: 'deploy/local/mongo-dev bench',
    file: 'deploy/local/mongo-dev/bench/dist/throughput.js',
    args: ['--clients', '2', '--seconds', '0.2', '--warmup', '0'],
    env: {},
    againstSystem: false,
    lines: [
      'mongo-dev throughput: {text}',
      'machine: {n} CPUs, {text}, node {text}',
      '{text} {n} ops/s ({n} ops, {n} clients, {n} s)',
      'documents at the end: {n}',
    ],
  },
  {
    script: 'deploy/local/mongo-dev bench:cost',
    file: 'deploy/local/mongo-dev/bench/dist/queryCost.js',
    args: ['--iterations', '4', '--rounds', '1'],
    env: {},
    againstSystem: false,
    lines: [
      'mongo-dev server CPU per operation (median of {n} rounds × {n}), load {n} {n} {n}',
      ...Array.from({ length: 8 }, () => '{text} {n} µs CPU {n} µs wall rounds: {n}'),
      'load after: {n} {n} {n}',
    ],
  },
  {
    script: 'services/automations-engine bench',
    file: 'services/automations-engine/dist/bench/bench/engineOverhead.js',
    env: { BENCH_ROUNDS: '2', BENCH_RUNS: '3' },
    againstSystem: false,
    lines: [
      'graph: {n} nodes (set_variable and condition), prepared once in {n} ms',
      'rounds (ms per node): {n} {n}',
      'engine overhead per node: median {n} ms ({n} rounds of {n} runs)',
      'a replayed happening on the finished 50-node run: median {n} ms',
    ],
  },
  {
    script: 'services/gateway bench',
    file: 'services/gateway/dist/bench/authenticatedRepos.js',
    env: { BENCH_REQUESTS: '40', BENCH_WARMUP: '10', BENCH_CONCURRENCY: '4' },
    againstSystem: true,
    lines: [
      'GET /api/v1/svc/repos, {n} requests, concurrency {n}, Node {text}',
      'bare Koa handler {n} req/s p50 {n} ms p99 {n} ms non-200: 0',
      'bare Koa -> undici proxy {n} req/s p50 {n} ms p99 {n} ms non-200: 0',
      'gateway (PAT + limit) {n} req/s p50 {n} ms p99 {n} ms non-200: 0',
      'ratio gateway/bare: throughput {n}x, p50 {n}x, p99 {n}x',
      'ratio gateway/proxy: throughput {n}x, p50 {n}x, p99 {n}x',
    ],
  },
  {
    script: 'services/automations-engine bench:trigger',
    file: 'services/automations-engine/dist/bench/bench/triggerToAgent.js',
    env: { BENCH_TRIGGERS: '1', BENCH_WARMUP: '0' },
    againstSystem: true,
    lines: [
      'automations through the gateway, local stack, stand-in harness, Node {text}; {n} triggers of each graph',
      'trigger → first agent run started, {n} node(s) before the agent: p50 {n} ms, max {n} ms',
      'trigger → first agent run started, {n} nodes before the agent: p50 {n} ms, max {n} ms',
      'engine overhead per node with its storage: ({n} ms − {n} ms) / {n} = {±n} ms',
    ],
  },
  {
    script: 'services/runs bench',
    file: 'services/runs/dist/bench/runFlow.js',
    env: { BENCH_STARTS: '2', BENCH_CONCURRENCY: '2', BENCH_LATENCY_RUNS: '1' },
    againstSystem: true,
    lines: [
      'runs through the gateway, local stack, stand-in harness (codex), Node {text}',
      'run starts: {n} at concurrency {n} in {n} s = {n} starts/s',
      'burst finished: the last of {n} terminal {n} s after the first POST = {n} runs/s (0 not success)',
      'POST /runs answered (202) ({n} runs, one at a time): p50 {n} ms, max {n} ms',
      'run created → first event (same runs, server clock): p50 {n} ms, max {n} ms',
      'run created → success (same runs, server clock): p50 {n} ms, max {n} ms',
    ],
  },
  {
    script: 'services/runs bench:clis',
    file: 'services/runs/dist/bench/cliLatency.js',
    env: { BENCH_LATENCY_RUNS: '1' },
    againstSystem: true,
    lines: [
      'run latency by harness CLI, local stack, one run at a time, Node {text}',
      'stand-in CLI codex (1 runs) run created → first event: p50 {n} ms, max {n} ms',
      'stand-in CLI codex (1 runs) run created → success: p50 {n} ms, max {n} ms',
      'stand-in CLI claude-code (1 runs) run created → first event: p50 {n} ms, max {n} ms',
      'stand-in CLI claude-code (1 runs) run created → success: p50 {n} ms, max {n} ms',
    ],
  },
  {
    script: 'services/runs bench:adversarial',
    file: 'services/runs/dist/bench/adversarialOutput.js',
    env: { BENCH_SAMPLES: '3', BENCH_ADVERSARIAL_BYTES: '1000' },
    againstSystem: true,
    lines: [
      "another tenant's GET /runs/{runId} through the gateway, local stack, stand-in harness (codex), Node {text}",
      'idle stack ({n} requests): p50 {n} ms, max {n} ms',
      'during 4 × {n} KB adversarial run ({n} requests): p50 {n} ms, max {n} ms; the run ended success in {n} s',
    ],
  },
  {
    script: 'services/runs bench:stream',
    file: 'services/runs/dist/bench/eventStream.js',
    // 40 events, not fewer: a run's events read in one go have no first-to-last span at the client,
    // and its events/s would be Infinity; 40 take a few of the stream's 200 ms polls to be stored.
    env: { BENCH_EVENTS: '40', BENCH_SPACED_EVENTS: '3', BENCH_SPACING_MS: '1', BENCH_POLL_MS: '50' },
    againstSystem: true,
    lines: [
      "a run's events from the harness to a client through the gateway, local stack, stand-in harness (codex), Node {text}",
      'machine load (1/5/15 min): {n} / {n} / {n} before, {n} / {n} / {n} after',
      'throughput, one run (events/s: first→last event at the client | run created→all at the client | first→last createdAt; s: created→all)',
      'events client created emitted s',
      'SSE stream, {n} @say {n} {n} {n} {n} {n}',
      'JSON after=, {n} @say, poll {n} ms {n} {n} {n} {n} {n}',
      'delay, harness output (createdAt) → SSE client, {n} @say with @sleep {n} (createdAt gaps p50 {n} ms): p50 {n} ms, p99 {n} ms, max {n} ms, min {n} ms; p50 of the first tenth {n} ms, of the last {n} ms',
    ],
  },
  {
    script: 'services/runs bench:streams',
    file: 'services/runs/dist/bench/manyStreams.js',
    env: { BENCH_RUNS: '2', BENCH_RUNS_PER_USER: '2', BENCH_RUN_EVENTS: '3', BENCH_SPACING_MS: '1' },
    againstSystem: true,
    lines: [
      '{n} runs streaming at once, one SSE watcher each, local stack, stand-in harness (codex), Node {text}',
      "settings: {n} users × {n} runs, the running system's settings; {n} @say per run with @sleep {n} (about {n} events/s each)",
      'machine load (1/5/15 min): {n} / {n} / {n} before, {n} / {n} / {n} after',
      'every run whole, once, in order: {n} @say events; {n} runs printing at once at the peak; all ended in {n} s',
      'delay, harness output (createdAt) → SSE client, every event: p50 {n} ms, p99 {n} ms, max {n} ms',
      "each run's p99 delay: best {n} ms, median {n} ms, worst {n} ms",
    ],
  },
];

/** A smoke form gets this long; its jest test a little longer, to kill it and say so. */
const BENCH_TIMEOUT_MS = 45_000;
/** A process of a stack: any service's built main. Its presence under a benchmark means it started a stack of its own. */
const SERVICE_PROCESS = /services\/[\w-]+\/dist\/main\.js/;

/** A template of `lines` as a regular expression over one trimmed line; its groups are the figures. */
function templatePattern(template: string): RegExp {
  const source = template
    .split(/(\{n\}|\{±n\}|\{text\}| +)/)
    .map((part) => {
      if (part === '{n}') return '(\\d+(?:\\.\\d+)?)';
      if (part === '{±n}') return '(-?\\d+(?:\\.\\d+)?)';
      if (part === '{text}') return '.+?';
      if (/^ +$/.test(part)) return '\\s+';
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${source}$`);
}

interface BenchRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The command lines of every process seen below the benchmark while it ran. */
  descendants: Set<string>;
}

/**
 * `node <file> <args>` from the repository root, to its end, watching what it starts. A plain
 * spawn, not @ars/stack's startChild: the figures are read from stdout apart from stderr, and the
 * child's own pid is what /proc is searched under.
 */
function runBench(smoke: Smoke, env: NodeJS.ProcessEnv): Promise<BenchRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fromRoot(smoke.file), ...(smoke.args ?? [])], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const pid = child.pid;
    if (pid === undefined) return reject(new Error(`could not start ${smoke.file}`));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    // A whole stack takes seconds to start, so a look every 100 ms cannot miss one.
    const descendants = new Set<string>();
    const watch = setInterval(() => {
      for (const descendant of descendantsOf(pid)) descendants.add(commandLineOf(descendant));
    }, 100);
    const deadline = setTimeout(() => child.kill('SIGKILL'), BENCH_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearInterval(watch);
      clearTimeout(deadline);
      resolve({ code, signal, stdout, stderr, descendants });
    });
  });
}

/** The workspaces of the root package.json (`shared/*` … `test`), as folders from the root. */
function workspaces(): string[] {
  const globs = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
  return globs.flatMap((glob) =>
    glob.endsWith('/*')
      ? readdirSync(join(repoRoot, glob.slice(0, -2)), { withFileTypes: true })
          .filter((entry) => entry.isDirectory() && existsSync(join(repoRoot, glob.slice(0, -2), entry.name, 'package.json')))
          .map((entry) => `${glob.slice(0, -2)}/${entry.name}`)
      : [glob],
  );
}

/** Every `bench` / `bench:*` script: `<workspace> <script>` → the file its `node <file>` runs, from the root. */
function benchScripts(): Record<string, string> {
  const found: Record<string, string> = {};
  for (const workspace of workspaces()) {
    const { scripts = {} } = JSON.parse(readFileSync(join(repoRoot, workspace, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    for (const [name, command] of Object.entries(scripts)) {
      if (name !== 'bench' && !name.startsWith('bench:')) continue;
      const file = /\bnode (\S+\.js)\b/.exec(command)?.[1];
      found[`${workspace} ${name}`] = file ? join(workspace, file) : `(no node <file> in "${command}")`;
    }
  }
  return found;
}

describe('every bench and bench:* script of every workspace has its smoke form here', () => {
  test('the scripts of the package.json files and the smoke forms below name the same built files', () => {
    const smokes = Object.fromEntries(SMOKES.map((smoke) => [smoke.script, smoke.file]));
    expect(smokes).toEqual(benchScripts());
  });
});

describe('each benchmark in its smoke form (tiny counts, the stack benchmarks on the running system) exits 0 and prints every figure, each a finite number, no failure reported, and starts no stack of its own', () => {
  test.each<[string, Smoke]>(SMOKES.map((smoke) => [smoke.script, smoke]))(
    '%s',
    async (_script, smoke) => {
      const env: NodeJS.ProcessEnv = { ...process.env, ...smoke.env };
      if (smoke.againstSystem) env.BENCH_BASE_URL = system().baseUrl;
      else delete env.BENCH_BASE_URL;
      const run = await runBench(smoke, env);
      const said = `${smoke.file} ${run.signal ? `was killed (${run.signal}) after ${BENCH_TIMEOUT_MS} ms` : `exited ${run.code}`}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
      if (run.code !== 0) throw new Error(said);

      const patterns = smoke.lines.map(templatePattern);
      const printed = run.stdout
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '');
      const unknown = printed.filter((line) => !patterns.some((pattern) => pattern.test(line)));
      const missing = smoke.lines.filter((_template, i) => !printed.some((line) => patterns[i]?.test(line)));
      if (unknown.length > 0 || missing.length > 0) {
        throw new Error(`lines of no template: ${JSON.stringify(unknown)}; templates of no line: ${JSON.stringify(missing)}\n${said}`);
      }
      const figures = printed.flatMap((line) => patterns.flatMap((pattern) => pattern.exec(line)?.slice(1) ?? []).map(Number));
      expect(figures.length).toBeGreaterThan(0);
      expect(figures.filter((figure) => !Number.isFinite(figure))).toEqual([]);

      expect([...run.descendants].filter((command) => SERVICE_PROCESS.test(command))).toEqual([]);
    },
    BENCH_TIMEOUT_MS + 10_000,
  );
});
