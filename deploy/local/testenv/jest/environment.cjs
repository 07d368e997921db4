// jest's Node environment, plus one thing: each test file's AsyncLocalStorage instances are disabled
// when the file ends. jest evaluates a file's modules afresh in the same worker process, so a module's
// `new AsyncLocalStorage()` (@ars/http-app's request context, once per file) makes a new instance each
// time, and Node.js never drops an enabled one: it copies every enabled instance's store into every
// async resource the process makes from then on. A worker near the end of its life paid for dozens on
// every promise (a profile of an in-process test suite run in band: 5 % of its time in
// AsyncLocalStorage's _propagate). Node.js 20 enables an instance in `_enable()` (its first `run` or
// `enterWith`); where that method does not exist (a later Node.js with another implementation) nothing
// is tracked and nothing changes.
//
// With ARS_JEST_CPU_LOG set to a file, each test file also appends a line to it: its path, the CPU
// seconds its worker spent on it (loading its modules, its tests, the services it runs in-process; not
// the processes it starts) and its wall seconds (test/README.md, "CI time").
const { appendFileSync } = require('node:fs');
const { AsyncLocalStorage } = require('node:async_hooks');
const { relative } = require('node:path');
const { TestEnvironment } = require('jest-environment-node');

/** The instances enabled while the current file runs (one file at a time per worker). */
let enabledInThisFile = null;

const originalEnable = AsyncLocalStorage.prototype._enable;
if (typeof originalEnable === 'function' && !originalEnable.arsTracked) {
  const trackedEnable = function trackedEnable(...args) {
    enabledInThisFile?.add(this);
    return originalEnable.apply(this, args);
  };
  trackedEnable.arsTracked = true;
  AsyncLocalStorage.prototype._enable = trackedEnable;
}

class ArsTestEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = relative(config.globalConfig.rootDir, context.testPath);
  }

  async setup() {
    this.started = { cpu: process.cpuUsage(), at: process.hrtime.bigint() };
    await super.setup();
    enabledInThisFile = new Set();
  }

  async teardown() {
    for (const storage of enabledInThisFile ?? []) storage.disable();
    enabledInThisFile = null;
    await super.teardown();
    const log = process.env.ARS_JEST_CPU_LOG;
    if (log && this.started) {
      const cpu = process.cpuUsage(this.started.cpu);
      const wall = Number(process.hrtime.bigint() - this.started.at) / 1e9;
      appendFileSync(log, `${this.testPath}\t${((cpu.user + cpu.system) / 1e6).toFixed(2)}\t${wall.toFixed(2)}\n`);
    }
  }
}

module.exports = ArsTestEnvironment;
