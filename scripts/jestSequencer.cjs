// The order jest starts test files in, longest first so that no long file starts last and runs alone
// on one worker while the others sit idle. jest's own order is by the last run's durations, which a
// fresh clone (CI) does not have, and then by file size, which puts a 100-line restart suite of four
// minutes behind 200 unit test files. Without durations of its own, a file's recorded time
// (scripts/jestDurations.json, scripts/recordJestDurations.mjs) orders it; a file not recorded
// (new, or under jest's 5 s) is given its band's guess: a suite with a system of its own (test/README.md's
// table: each starts a whole stack and most wait on restarts) 60 s, one on the shared system 15 s,
// the rest 0 s; then by size. The order matters: a fresh clone's run in the bands' order alone
// spent 43 % more file time than one in the recorded order (four whole stacks starting at once).
// That order is then dealt out so that one worker is always left to the files without a system of
// their own (`interleaved`, below).
const { readFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const ROOT = join(__dirname, '..');
const OWN_SYSTEM_ROW = /^\| `([^`]+\.test\.ts)` \|/gm;
const ON_SHARED_SYSTEM = /\bsharedSystem\(|\bgatewaySuite\(/;
/** Seconds guessed for a file with no recorded time, by band (own system, shared system, the rest): its place in the order. */
const BAND_GUESS_S = [60, 15, 0];
/** And the time it is expected to take when the order is played out on the workers (a file under 5 s averaged 2.5 s). */
const BAND_EXPECTED_S = [60, 15, 2.5];

function recordedDurations() {
  try {
    return JSON.parse(readFileSync(join(ROOT, 'scripts/jestDurations.json'), 'utf8'));
  } catch {
    return {};
  }
}

/** The suites test/README.md lists as having a system of their own. */
function suitesWithTheirOwnSystem() {
  const readme = readFileSync(join(ROOT, 'test/README.md'), 'utf8');
  const section = /^## Systems: [^\n]*\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';
  return new Set([...section.matchAll(OWN_SYSTEM_ROW)].map((row) => row[1]));
}

class LongestFirstSequencer extends Sequencer {
  constructor(options) {
    super(options);
    this.workers = Math.max(1, options?.globalConfig?.maxWorkers ?? 1);
  }

  sort(tests) {
    for (const test of tests) test.duration = this.time(test);
    // With every duration known (a developer's second run), jest's own order is the better one.
    if (tests.every((test) => test.duration != null)) return super.sort(tests);
    const own = suitesWithTheirOwnSystem();
    const recorded = recordedDurations();
    const band = (path) => {
      if (own.has(relative(ROOT, path))) return 0;
      return ON_SHARED_SYSTEM.test(readFileSync(path, 'utf8')) ? 1 : 2;
    };
    const keyed = tests.map((test) => {
      const inBand = band(test.path);
      const seconds = recorded[relative(ROOT, test.path)];
      return {
        test,
        ownSystem: inBand === 0,
        seconds: seconds ?? BAND_GUESS_S[inBand],
        expected: seconds ?? BAND_EXPECTED_S[inBand],
        size: test.context.hasteFS.getSize(test.path) ?? 0,
      };
    });
    keyed.sort((a, b) => b.seconds - a.seconds || b.size - a.size);
    return interleaved(keyed, this.workers).map((entry) => entry.test);
  }
}

/**
 * The longest-first order, played out on the workers with the expected durations, taking a suite
 * with a system of its own only while fewer than all but one of the workers run one: a whole system
 * mostly waits (restarts, deadlines, drains) once it has started, so with every worker on one the
 * machine's CPU sat half idle (a fresh run's first minutes, 2026-11-30); the worker left takes the
 * files that need no system, which mostly compute. Each list stays longest first.
 */
function interleaved(entries, workers) {
  const ownSystem = entries.filter((entry) => entry.ownSystem);
  const rest = entries.filter((entry) => !entry.ownSystem);
  const mostOwnAtOnce = Math.max(1, workers - 1);
  const freeAt = new Array(workers).fill(0);
  const ownEndsAt = [];
  const order = [];
  while (ownSystem.length > 0 || rest.length > 0) {
    const worker = freeAt.indexOf(Math.min(...freeAt));
    const now = freeAt[worker];
    const ownRunning = ownEndsAt.filter((end) => end > now).length;
    const takeOwn = ownSystem.length > 0 && (ownRunning < mostOwnAtOnce || rest.length === 0);
    const entry = takeOwn ? ownSystem.shift() : rest.shift();
    freeAt[worker] = now + entry.expected;
    if (takeOwn) ownEndsAt.push(freeAt[worker]);
    order.push(entry);
  }
  return order;
}

module.exports = LongestFirstSequencer;
