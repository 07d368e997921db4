// Writes the file times of a whole jest run, as jest prints them ("PASS path (N s)", files over its
// 5 s slow threshold), to scripts/jestDurations.json: what jestSequencer.cjs orders a fresh clone's
// run by, where jest has no durations of its own. Take them from a run on a quiet machine:
//   node --experimental-vm-modules node_modules/jest/bin/jest.js 2>&1 | tee /tmp/jest.log
//   node scripts/recordJestDurations.mjs < /tmp/jest.log
import { readFileSync, writeFileSync } from 'node:fs';

const log = readFileSync(0, 'utf8');
const durations = {};
for (const [, path, seconds] of log.matchAll(/^(?:PASS|FAIL) (\S+\.test\.ts) \((\d+(?:\.\d+)?) s\)/gm)) durations[path] = Math.round(Number(seconds));
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => a.localeCompare(b)));
const file = new URL('./jestDurations.json', import.meta.url);
writeFileSync(file, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`${Object.keys(sorted).length} file times written to ${file.pathname}`);
