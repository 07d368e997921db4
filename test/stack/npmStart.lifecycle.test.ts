import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { INSTANCE_HEADER, repoRoot, type StackFile } from '@ars/stack';
import { freePort, waitFor } from '@ars/testenv';
import { commandLineOf, descendantsOf, isAlive } from '../support/processTree.js';
import { newRunsUser } from '../support/runs.js';

interface RunningStack {
  process: ChildProcess;
  baseUrl: string;
  /** What the stack wrote to `.stack/stack.json` (its services' URLs). */
  stackFile(): StackFile;
  /** Resolves with the first stderr line (the stack's own and its children's) matching `pattern`. */
  stderrLine(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  exited: Promise<number | null>;
}

/** `npm start` itself, from the repository root (its install and build steps are no-ops after npm test's). */
async function startWholeStack(): Promise<RunningStack> {
  const port = await freePort();
  const stateDir = mkdtempSync(join(tmpdir(), 'ars-stack-state-'));
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), STACK_DATA_DIR: '', STACK_STATE_DIR: stateDir, LOG_LEVEL: 'warn' };
  // The whole local stack: no given servers.
  delete env.KAFKA_BROKERS;
  delete env.MONGO_URL;
  delete env.REDIS_URL;
  const child = spawn('npm', ['start', '--silent'], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  const stderrLines: string[] = [];
  const stderrWaiters = new Set<(line: string) => void>();
  createInterface({ input: child.stderr! }).on('line', (line) => {
    stderr = `${stderr}${line}\n`.slice(-4000);
    stderrLines.push(line);
    for (const waiter of stderrWaiters) waiter(line);
  });
  const stderrLine = (pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`no stderr line matching ${pattern} within ${timeoutMs} ms:\n${stderr}`)), timeoutMs);
      const waiter = (line: string): void => {
        const match = pattern.exec(line);
        if (match) finish(undefined, match);
      };
      function finish(error?: Error, match?: RegExpExecArray): void {
        clearTimeout(timer);
        stderrWaiters.delete(waiter);
        if (error) reject(error);
        else resolve(match as RegExpExecArray);
      }
      stderrWaiters.add(waiter);
      for (const line of stderrLines) waiter(line);
    });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const match = /ready at (http:\/\/\S+)/.exec(line);
      if (match?.[1]) resolve(match[1]);
    });
    void exited.then((code) => reject(new Error(`the stack exited (${code}) before it was ready:\n${stderr}`)));
  });
  const stackFile = (): StackFile => JSON.parse(readFileSync(join(stateDir, 'stack.json'), 'utf8')) as StackFile;
  return { process: child, baseUrl, stackFile, stderrLine, exited };
}

async function stopsCleanlyOn(signal: NodeJS.Signals): Promise<void> {
  const stack = await startWholeStack();
  const response = await fetch(`${stack.baseUrl}/readyz`);
  expect(response.status).toBe(200);
  const descendants = descendantsOf(stack.process.pid!);
  // infrastructure (kafka, mongo, redis) and seven services
  expect(descendants.length).toBeGreaterThanOrEqual(10);

  stack.process.kill(signal);
  expect(await stack.exited).toBe(0);
  expect(descendants.filter(isAlive)).toEqual([]);
}

describe('npm start reaches /readyz 200 and a signal leaves no process behind', () => {
  test('the gateway answers /readyz 200 once every service is ready; SIGINT stops everything', async () => {
    await stopsCleanlyOn('SIGINT');
  }, 120_000);

  test('SIGTERM stops everything too', async () => {
    await stopsCleanlyOn('SIGTERM');
  }, 120_000);

  test('even a SIGKILL of the stack leaves no service or infrastructure process behind', async () => {
    const stack = await startWholeStack();
    const descendants = descendantsOf(stack.process.pid!);
    expect(descendants.length).toBeGreaterThanOrEqual(10);
    // npm start execs the stack's node process; that is the one to kill without warning.
    const stackPid = descendants.find((pid) => commandLineOf(pid).includes('deploy/local/stack/dist/main.js'));
    expect(stackPid).toBeDefined();
    process.kill(stackPid!, 'SIGKILL');
    await stack.exited;
    const survivors = (): string =>
      descendants
        .filter(isAlive)
        .map((pid) => `${pid} ${commandLineOf(pid)}`)
        .join('; ');
    await waitFor(
      () => `every process the stack started to be gone (still alive: ${survivors()})`,
      () => descendants.filter(isAlive).length === 0,
      {
        timeoutMs: 20_000,
        intervalMs: 200,
      },
    );
    expect(descendants.filter(isAlive)).toEqual([]);
  }, 120_000);
});

/** The pid of the service's node process under the stack (`services/<name>/dist/main.js`). */
function servicePid(stack: RunningStack, name: string): number | undefined {
  return descendantsOf(stack.process.pid!).find((pid) => commandLineOf(pid).includes(`services/${name}/dist/main.js`));
}

describe('npm start restarts a service that crashed, on its port, instead of stopping everything', () => {
  test('kill -9 of runs: the restart line, /readyz answered by the NEW runs, then a run through the gateway succeeds', async () => {
    const stack = await startWholeStack();
    try {
      const runsUrl = stack.stackFile().services.runs;
      const before = await fetch(`${runsUrl}/readyz`);
      expect(before.status).toBe(200);
      const oldInstance = before.headers.get(INSTANCE_HEADER);
      expect(oldInstance).toEqual(expect.any(String));
      const oldPid = servicePid(stack, 'runs');
      expect(oldPid).toBeDefined();

      process.kill(oldPid!, 'SIGKILL');
      await stack.stderrLine(/^\[stack\] runs exited \(signal SIGKILL\); restarting in 1 s \(attempt 1\)$/, 10_000);
      const [, newPid, readyAt] = await stack.stderrLine(/^\[stack\] runs restarted \(attempt 1\): pid (\d+), ready at (\S+)$/, 60_000);
      // Same URL (peers were given it), a new process, and it is that process that answers.
      expect(readyAt).toBe(runsUrl);
      expect(Number(newPid)).not.toBe(oldPid);
      expect(isAlive(Number(newPid))).toBe(true);
      expect(isAlive(oldPid!)).toBe(false);
      const after = await fetch(`${runsUrl}/readyz`);
      expect(after.status).toBe(200);
      expect(after.headers.get(INSTANCE_HEADER)).toEqual(expect.any(String));
      expect(after.headers.get(INSTANCE_HEADER)).not.toBe(oldInstance);

      // The stack never stopped: through the gateway, a run (which needs runs) is started and ends.
      expect((await fetch(`${stack.baseUrl}/readyz`)).status).toBe(200);
      const { runs, repoId } = await newRunsUser(stack.baseUrl, 2);
      const run = await runs.started({ repoId, prompt: '@say back again' });
      const { run: done } = await runs.waitFor(run.runId, undefined, 60_000);
      expect(done).toMatchObject({ status: 'success' });
    } finally {
      stack.process.kill('SIGTERM');
      expect(await stack.exited).toBe(0);
    }
  }, 180_000);
});
