// A test file that never ends holds a jest run forever: every test has its timeout, but a worker
// whose event loop is blocked (a loop that never yields, a synchronous call that never returns) or
// a file whose module code awaits forever is bounded by nothing. CI then ends at its own limit
// with no word of which file, where it was stuck or why (a run of 2026-11-30 ended that way after
// 5,400 s, every printed file passed). This reporter bounds each file:
//   - past ARS_TEST_FILE_WARN_S (default 600 s) it prints, once, where the run stands: the files
//     running and for how long, the processes under jest with their state and kernel wait channel,
//     and each jest worker's JavaScript stack (a Node.js diagnostic report, which the workers write
//     on SIGUSR2 because `npm run test:jest` starts node with --report-on-signal);
//   - past ARS_TEST_FILE_LIMIT_S (default 1,200 s) it prints the same, kills every process under
//     jest and ends the run with exit code 1 and the closing line CI reads, so that a hang costs
//     twenty minutes and names itself.
// The longest file takes 165 s on a quiet machine (scripts/jestDurations.json); the limits leave it
// seven times that.
const { execFileSync } = require('node:child_process');
const { mkdirSync, readdirSync, readFileSync, rmSync, writeSync } = require('node:fs');
const { join } = require('node:path');

/** How often the running files are looked at: every 5 s, or more often under short limits (its test). */
const CHECK_EVERY_MS = 5_000;
const REPORT_WAIT_MS = 3_000;
const STACK_FRAMES = 30;
const INSPECTOR_PORT = 9229;
const NO_STACK =
  '(none: the worker answered neither a report nor its inspector, so its thread is in a system call or native code; or its stack is printed above)';

function seconds(name, fallback) {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

function say(text) {
  writeSync(2, `${text}\n`);
}

/** Every process below `root`, from ps: pid, parent, state, wait channel, age, CPU time, command. */
function processesBelow(root) {
  let table;
  try {
    table = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,stat=,wchan:22=,etimes=,times=,args='], { encoding: 'utf8', timeout: 10_000 });
  } catch (error) {
    return { rows: [], error: error instanceof Error ? error.message : String(error) };
  }
  const all = table
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [pid, ppid, stat, wchan, age, cpu, ...args] = line.trim().split(/\s+/);
      return { pid: Number(pid), ppid: Number(ppid), stat, wchan, age, cpu, args: args.join(' ') };
    });
  const below = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const row of all) {
      if (!below.has(row.pid) && below.has(row.ppid)) {
        below.add(row.pid);
        grew = true;
      }
    }
  }
  const ps = all.find((row) => row.ppid === process.pid && row.args.startsWith('ps -e -o'));
  return { rows: all.filter((row) => row.pid !== root && row !== ps && below.has(row.pid)) };
}

function kernelStack(pid) {
  try {
    return readFileSync(`/proc/${pid}/stack`, 'utf8').trim();
  } catch {
    return '';
  }
}

function reportDirectory() {
  const flag = process.execArgv.find((arg) => arg.startsWith('--report-directory='));
  return process.execArgv.includes('--report-on-signal') && flag ? flag.slice('--report-directory='.length) : undefined;
}

/**
 * The JavaScript stack of a worker whose event loop is blocked, which cannot answer a report: its
 * inspector, opened by SIGUSR1 on 127.0.0.1:9229, pauses it between two statements (V8 services
 * the request even inside a loop that never yields) and names its frames.
 */
async function pausedStack(pid) {
  const WebSocket = require('ws');
  process.kill(pid, 'SIGUSR1');
  let target;
  for (const deadline = Date.now() + REPORT_WAIT_MS; !target && Date.now() < deadline;) {
    try {
      [target] = await (await fetch(`http://127.0.0.1:${INSPECTOR_PORT}/json/list`)).json();
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  if (!target) return undefined;
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  // Debugger.enable announces every script; a paused frame names its script only by id.
  const scripts = new Map();
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve(undefined), REPORT_WAIT_MS);
      socket.on('error', reject);
      socket.on('open', () => {
        socket.send(JSON.stringify({ id: 1, method: 'Debugger.enable' }));
        socket.send(JSON.stringify({ id: 2, method: 'Debugger.pause' }));
      });
      socket.on('message', (data) => {
        const message = JSON.parse(String(data));
        if (message.method === 'Debugger.scriptParsed') scripts.set(message.params.scriptId, message.params.url);
        if (message.method !== 'Debugger.paused') return;
        clearTimeout(timer);
        const frames = message.params.callFrames.slice(0, STACK_FRAMES).map((frame) => {
          const { lineNumber, columnNumber } = frame.location;
          const url = frame.url || scripts.get(frame.location.scriptId) || '?';
          return `at ${frame.functionName || '<anonymous>'} (${url}:${lineNumber + 1}:${columnNumber + 1})`;
        });
        resolve(`(paused through its inspector: its event loop is blocked)\n      ${frames.join('\n      ')}`);
      });
    });
  } catch {
    return undefined;
  } finally {
    socket.terminate();
  }
}

/** Asks each worker for a diagnostic report and returns its JavaScript stack, by pid. */
async function workerStacks(workers) {
  const directory = reportDirectory();
  if (!directory || workers.length === 0) return new Map();
  for (const worker of workers) {
    try {
      process.kill(worker.pid, 'SIGUSR2');
    } catch {
      // gone meanwhile
    }
  }
  await new Promise((resolve) => setTimeout(resolve, REPORT_WAIT_MS));
  const stacks = new Map();
  let names = [];
  try {
    names = readdirSync(directory).filter((name) => name.startsWith('report.') && name.endsWith('.json'));
  } catch {
    return stacks;
  }
  for (const name of names) {
    const path = join(directory, name);
    try {
      const report = JSON.parse(readFileSync(path, 'utf8'));
      const pid = report.header?.processId;
      if (!workers.some((worker) => worker.pid === pid)) continue;
      const js = report.javascriptStack ?? {};
      const frames = (js.stack ?? []).filter((frame) => frame.trim() !== '').slice(0, STACK_FRAMES);
      stacks.set(pid, frames.length === 0 ? '(idle: no JavaScript running)' : [js.message, ...frames].join('\n      '));
    } catch {
      // a report still being written is read next time
      continue;
    }
    rmSync(path, { force: true });
  }
  return stacks;
}

class WatchdogReporter {
  constructor() {
    this.warnAfterS = seconds('ARS_TEST_FILE_WARN_S', 600);
    this.limitS = Math.max(seconds('ARS_TEST_FILE_LIMIT_S', 1_200), this.warnAfterS);
    this.running = new Map();
    this.warned = new Set();
    this.inspected = new Set();
    this.totals = { passed: 0, failed: 0, skipped: 0 };
    this.checking = false;
    const directory = reportDirectory();
    if (directory) mkdirSync(directory, { recursive: true });
    this.timer = setInterval(() => void this.check(), Math.min(CHECK_EVERY_MS, (this.warnAfterS * 1000) / 2));
    this.timer.unref();
  }

  onTestFileStart(test) {
    this.running.set(test.path, Date.now());
  }

  onTestFileResult(test, _result, aggregated) {
    this.running.delete(test.path);
    this.totals = {
      passed: aggregated.numPassedTests,
      failed: aggregated.numFailedTests + aggregated.numRuntimeErrorTestSuites,
      skipped: aggregated.numPendingTests + aggregated.numTodoTests,
    };
  }

  onRunComplete() {
    clearInterval(this.timer);
  }

  async check() {
    if (this.checking) return;
    this.checking = true;
    try {
      const now = Date.now();
      const ages = [...this.running].map(([path, startedAt]) => ({ path, age: Math.round((now - startedAt) / 1000) }));
      const over = ages.find((file) => file.age >= this.limitS);
      if (over) return await this.endRun(over, ages);
      const slow = ages.find((file) => file.age >= this.warnAfterS && !this.warned.has(file.path));
      if (!slow) return;
      this.warned.add(slow.path);
      say(`\n[watchdog] ${slow.path} has run for ${slow.age} s (over ${this.warnAfterS} s; the run ends at ${this.limitS} s)`);
      await this.describe(ages);
    } finally {
      this.checking = false;
    }
  }

  async describe(ages) {
    say('[watchdog] files running:');
    for (const file of ages) say(`  ${file.age} s  ${file.path}`);
    const { rows, error } = processesBelow(process.pid);
    if (error) say(`[watchdog] ps failed: ${error}`);
    say('[watchdog] processes under jest (pid ppid state wait-channel age-s cpu-s command):');
    for (const row of rows) say(`  ${row.pid} ${row.ppid} ${row.stat} ${row.wchan} ${row.age} ${row.cpu} ${row.args.slice(0, 200)}`);
    const workers = rows.filter((row) => row.ppid === process.pid && row.args.includes('processChild'));
    const stacks = await workerStacks(workers);
    for (const worker of workers) {
      let stack = stacks.get(worker.pid);
      if (!stack && !this.inspected.has(worker.pid)) {
        // Once a worker: its inspector stays open on the port, which a second worker could not take.
        this.inspected.add(worker.pid);
        stack = await pausedStack(worker.pid);
      }
      say(`[watchdog] jest worker ${worker.pid}:`);
      say(`  JavaScript stack: ${stack ?? NO_STACK}`);
      const kernel = kernelStack(worker.pid);
      if (kernel) say(`  kernel stack:\n    ${kernel.split('\n').join('\n    ')}`);
    }
  }

  async endRun(over, ages) {
    clearInterval(this.timer);
    say(`\n[watchdog] ${over.path} has run for ${over.age} s, over the limit of ${this.limitS} s: ending the run`);
    await this.describe(ages);
    for (const row of processesBelow(process.pid).rows) {
      try {
        process.kill(row.pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    const { passed, failed, skipped } = this.totals;
    writeSync(1, `\n${over.path} ran over ${this.limitS} s and was stopped\njest: ${passed} passed, ${failed + 1} failed, ${skipped} skipped\n`);
    process.exit(1);
  }
}

module.exports = WatchdogReporter;
