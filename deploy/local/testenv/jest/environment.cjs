// jest's Node environment, plus one thing: each test file's AsyncLocalStorage instances are disabled
// when the file ends. jest evaluates a file's modules afresh in the same worker process, so a module's
// `new AsyncLocalStorage()` (@ars/http-app's request context, once per file) makes a new instance each
// time, and Node.js never drops an enabled one: it copies every enabled instance's store into every
// async resource the process makes from then on. A worker near the end of its life paid for dozens on
// every promise (a profile of an in-process test suite run in band: 5 % of its time in
// AsyncLocalStorage's _propagate). Node.js 20 enables an instance in `_enable()` (its first `run` or
// `enterWith`); where that method does not exist (a later Node.js with another implementation) nothing
// is tracked and nothing changes.
const { AsyncLocalStorage } = require('node:async_hooks');
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
  async setup() {
    await super.setup();
    enabledInThisFile = new Set();
  }

  async teardown() {
    for (const storage of enabledInThisFile ?? []) storage.disable();
    enabledInThisFile = null;
    await super.teardown();
  }
}

module.exports = ArsTestEnvironment;
