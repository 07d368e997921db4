import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort, repoRoot } from '@ars/stack';
import { commandLineOf, descendantsOf, isAlive } from '../support/processTree.js';

interface RunningStack {
  process: ChildProcess;
  baseUrl: string;
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
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const match = /ready at (http:\/\/\S+)/.exec(line);
      if (match?.[1]) resolve(match[1]);
    });
    void exited.then((code) => reject(new Error(`the stack exited (${code}) before it was ready:\n${stderr}`)));
  });
  return { process: child, baseUrl, exited };
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
    await waitUntil(() => descendants.filter(isAlive).length === 0, 20_000);
    expect(descendants.filter(isAlive)).toEqual([]);
  }, 120_000);
});

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
}
