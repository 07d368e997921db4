// The order jest starts test files in, longest first so that no long file starts last and runs alone
// on one worker while the other sits idle. jest's own order is by the last run's durations, which a
// fresh clone (CI) does not have, and then by file size, which puts a 100-line restart suite of four
// minutes behind 200 unit test files. Without durations, files go in three bands: the suites with a
// system of their own (test/README.md's table: each starts a whole stack and most wait on restarts),
// then the suites on the shared system, then the rest; by size within a band.
const { readFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const ROOT = join(__dirname, '..');
const OWN_SYSTEM_ROW = /^\| `([^`]+\.test\.ts)` \|/gm;
const ON_SHARED_SYSTEM = /\bsharedSystem\(|\bgatewaySuite\(/;

/** The suites test/README.md lists as having a system of their own. */
function suitesWithTheirOwnSystem() {
  const readme = readFileSync(join(ROOT, 'test/README.md'), 'utf8');
  const section = /^## Systems: [^\n]*\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';
  return new Set([...section.matchAll(OWN_SYSTEM_ROW)].map((row) => row[1]));
}

class LongestFirstSequencer extends Sequencer {
  sort(tests) {
    for (const test of tests) test.duration = this.time(test);
    // With every duration known (a developer's second run), jest's own order is the better one.
    if (tests.every((test) => test.duration != null)) return super.sort(tests);
    const own = suitesWithTheirOwnSystem();
    const band = (path) => {
      if (own.has(relative(ROOT, path))) return 0;
      return ON_SHARED_SYSTEM.test(readFileSync(path, 'utf8')) ? 1 : 2;
    };
    const keyed = tests.map((test) => ({ test, band: band(test.path), size: test.context.hasteFS.getSize(test.path) ?? 0 }));
    keyed.sort((a, b) => a.band - b.band || b.size - a.size);
    return keyed.map((entry) => entry.test);
  }
}

module.exports = LongestFirstSequencer;
