// A sandbox whose set-up fails before its command runs (a busy kernel: bwrap's `loopback: Failed
// RTM_NEWADDR`) is started again, for commands and for the harness shim alike; the command itself
// runs once, and a command that fails on its own is never run again.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitToBare, noModelGateway } from '../../testing/sandboxesKit.js';
import { processesWorkingIn } from '../processesInDirectory.js';
import { BUSY_KERNEL_WORDS, installFlakyBwrap, type FlakyBwrap } from '../../testing/flakyBwrap.js';
import type { AllocatedSandbox, ExecRequest } from '../provider.js';
import { LAUNCH_VARIABLE, SANDBOX_SHIM, shimLaunch, STATE_DIR_VARIABLE } from './harnessShim.js';
import { programPath } from './hostLayout.js';
import { isolatedCommand, prepareIsolation, type LocalIsolation } from './localIsolation.js';
import { LocalProvider } from './localProvider.js';
import { SETUP_ATTEMPTS } from './sandboxedProcess.js';

// Required, never skipped: setup.sh installs bubblewrap, and the service refuses to start without it.
const foundBwrap = await programPath('bwrap');
if (!foundBwrap) throw new Error('bwrap is not installed (Debian package bubblewrap; deploy/local/setup.sh installs it as root)');
const realBwrap: string = foundBwrap;

let work: string;
let flaky: FlakyBwrap;
let isolation: LocalIsolation;
let provider: LocalProvider;
let sandbox: AllocatedSandbox;

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'ars-setup-retry-')));
  // The sandbox user (SANDBOX_UID) passes through to the sandboxes under it, as through any SANDBOX_ROOT's parents.
  chmodSync(work, 0o711);
  const bare = join(work, 'origin.git');
  execFileSync('git', ['init', '--quiet', '--bare', '-b', 'main', bare]);
  commitToBare(bare, 'main', { 'README.md': '# fixture\n' });
  flaky = installFlakyBwrap(realBwrap);
  isolation = await prepareIsolation();
  provider = new LocalProvider(join(work, 'sandboxes'), { isolation, killGraceMs: 1_000, modelGateway: noModelGateway() });
  sandbox = await provider.allocate({
    sandboxRecordId: 'record',
    runId: null,
    cloneUrl: bare,
    baseBranch: 'main',
    workingBranch: 'main',
    rootDirectory: null,
  });
});

afterAll(async () => {
  if (sandbox) await provider.release(sandbox);
  await provider?.close();
  flaky?.restore();
  if (work) rmSync(work, { recursive: true, force: true });
});

async function run(command: string, extra: Partial<ExecRequest> = {}): Promise<{ exitCode: number | null; aborted: boolean; output: string }> {
  const chunks: Buffer[] = [];
  const result = await provider.exec(sandbox, {
    command,
    cwd: sandbox.cwd,
    env: { PATH: '/usr/bin:/bin', HOME: sandbox.home },
    onOutput: (chunk) => chunks.push(chunk),
    ...extra,
  });
  return { ...result, output: Buffer.concat(chunks).toString('utf8') };
}

/** How many times the command below appended to its own count file. */
function timesRun(name: string): number {
  const file = join(sandbox.repoDir, name);
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
}

describe('a sandbox whose set-up fails before the command runs is started again', () => {
  test('a command whose sandbox failed to set up once runs once, with its own output and exit code only', async () => {
    flaky.failNext(1);
    const before = flaky.starts();
    const result = await run('echo ran >> once.count; echo out; echo err >&2; exit 3');
    expect(flaky.starts() - before).toBe(2);
    expect(result).toEqual({ exitCode: 3, aborted: false, output: 'out\nerr\n' });
    expect(timesRun('once.count')).toBe(1);
  });

  test(`a set-up that fails ${SETUP_ATTEMPTS} times in a row gives exit 125 and bwrap’s words, and nothing ran`, async () => {
    flaky.failNext(1_000);
    const before = flaky.starts();
    const result = await run('echo ran >> never.count');
    flaky.failNext(0);
    expect(flaky.starts() - before).toBe(SETUP_ATTEMPTS);
    expect(result.exitCode).toBe(125);
    expect(result.output).toContain('ars: the sandbox could not be started: bwrap exited 1 before the command ran');
    expect(result.output).toContain(BUSY_KERNEL_WORDS);
    expect(timesRun('never.count')).toBe(0);
  });

  test('a command that fails on its own (even with words like bwrap’s) is not run again', async () => {
    flaky.failNext(0);
    const before = flaky.starts();
    const result = await run(`echo ran >> own.count; echo '${BUSY_KERNEL_WORDS}' >&2; exit 1`);
    expect(flaky.starts() - before).toBe(1);
    expect(result).toEqual({ exitCode: 1, aborted: false, output: `${BUSY_KERNEL_WORDS}\n` });
    expect(timesRun('own.count')).toBe(1);
  });

  test('an abort while the set-up is being tried again ends it: aborted, nothing ran', async () => {
    flaky.failNext(1_000);
    const controller = new AbortController();
    const pending = run('echo ran >> aborted.count', { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const result = await pending;
    flaky.failNext(0);
    expect(result.aborted).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(timesRun('aborted.count')).toBe(0);
  });

  test('the harness shim starts the CLI again with the SDK’s stdin untouched, and shows only the CLI’s output', async () => {
    flaky.failNext(1);
    const before = flaky.starts();
    const result = await throughShim('cat; echo " and done"; echo "to stderr" >&2; exit 4', 'the prompt');
    expect(flaky.starts() - before).toBe(2);
    expect(result).toEqual({ exitCode: 4, stdout: 'the prompt and done\n', stderr: 'to stderr\n' });
  });

  test(`the harness shim gives exit 125 and bwrap’s words after ${SETUP_ATTEMPTS} failed set-ups, and the CLI never ran`, async () => {
    flaky.failNext(1_000);
    const before = flaky.starts();
    const result = await throughShim(`echo ran >> ${sandbox.repoDir}/shim-never.count`, 'the prompt');
    flaky.failNext(0);
    expect(flaky.starts() - before).toBe(SETUP_ATTEMPTS);
    expect(result.exitCode).toBe(125);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`sandbox-shim: the sandbox could not be started: bwrap exited 1 before the command ran: ${BUSY_KERNEL_WORDS}\n`);
    expect(timesRun('shim-never.count')).toBe(0);
  });
});

describe('the harness shim: a signal from the SDK ends the whole sandbox, and nothing of the launch or of the shim is left', () => {
  test('SIGTERM while the CLI runs: the CLI and what it started in the background are gone, the shim exits, its state folder in the runtime directory is removed', async () => {
    const shimStates = (): string[] => readdirSync(isolation.runtimeDir).filter((name) => name.startsWith('ars-sandbox-shim-'));
    const before = new Set(shimStates());
    const dir = join(sandbox.dir as string, 'shim');
    const { child, stdout, closed } = startShim('sleep 30 & echo started; wait', '');
    for (let attempt = 0; attempt < 200 && !stdout().includes('started'); attempt++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(stdout()).toBe('started\n');
    expect((await processesWorkingIn(dir)).length).toBeGreaterThan(0);
    child.kill('SIGTERM');
    const { exitCode, signal } = await closed;
    expect(signal).toBeNull();
    expect(exitCode).toBe(128 + 9);
    expect(await processesWorkingIn(dir)).toEqual([]);
    expect(shimStates().filter((name) => !before.has(name))).toEqual([]);
  });

  test('the CLI starts with no signal ignored, as one the SDK started itself (a shell’s background job would ignore SIGINT and SIGQUIT)', async () => {
    const { closed, stdout } = startShim('grep SigIgn /proc/self/status', '');
    expect((await closed).exitCode).toBe(0);
    expect(stdout()).toBe('SigIgn:\t0000000000000000\n');
  });

  test('the shim’s variables reach neither the CLI nor the sandbox’s PID 1; the rest of the environment does', async () => {
    const { closed, stdout } = startShim('tr "\\0" "\\n" < /proc/1/environ; echo ---; env', '', { ARS_TEST_SHIM_PASSES: 'yes' });
    expect((await closed).exitCode).toBe(0);
    expect(stdout()).not.toContain(LAUNCH_VARIABLE);
    expect(stdout()).not.toContain(STATE_DIR_VARIABLE);
    expect(stdout().split('---')).toEqual([expect.stringContaining('ARS_TEST_SHIM_PASSES=yes'), expect.stringContaining('ARS_TEST_SHIM_PASSES=yes')]);
  });
});

/** Starts `script` as the CLI through the harness shim, in a folder of the sandbox, as the SDKs do: the shim spawned with the launch in its environment. */
function startShim(script: string, stdin: string, env: Record<string, string> = {}) {
  const dir = join(sandbox.dir as string, 'shim');
  mkdirSync(dir, { recursive: true });
  const launch = isolatedCommand(isolation, { sandboxDir: sandbox.dir as string, cwd: dir, readOnly: [], command: ['/bin/sh', '-c'] });
  const child = spawn(SANDBOX_SHIM, [script], {
    env: { PATH: '/usr/bin:/bin', ...env, [LAUNCH_VARIABLE]: shimLaunch(launch), [STATE_DIR_VARIABLE]: isolation.runtimeDir },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin.end(stdin);
  const closed = new Promise<{ exitCode: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (exitCode, signal) => resolve({ exitCode, signal })),
  );
  return { child, closed, stdout: () => stdout, stderr: () => stderr };
}

/** Runs `script` as the CLI through the harness shim to its end. */
async function throughShim(script: string, stdin: string): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  const shim = startShim(script, stdin);
  const { exitCode } = await shim.closed;
  return { exitCode, stdout: shim.stdout(), stderr: shim.stderr() };
}
