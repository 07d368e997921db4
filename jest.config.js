// One jest run across every workspace. Workspace packages are mapped to their TypeScript sources
// so tests never depend on a stale build; `.js` suffixes of relative ESM imports map to `.ts`.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

const root = new URL('.', import.meta.url).pathname;
const workspaceGlobs = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).workspaces;
const moduleNameMapper = { '^(\\.{1,2}/.*)\\.js$': '$1' };
for (const glob of workspaceGlobs) {
  const dirs = glob.endsWith('/*')
    ? readdirSync(join(root, glob.slice(0, -2)), { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => join(glob.slice(0, -2), d.name))
    : [glob];
  for (const dir of dirs) {
    const manifest = join(root, dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const { name, exports } = JSON.parse(readFileSync(manifest, 'utf8'));
    // Every entry point a package exports (`.`, `./client`, `./testing` …) maps to the source its
    // `source` condition names (a publishable package, whose `types` are its built .d.ts), else its
    // `types`; a package without an exports map is reached through src/index.ts.
    const entries = exports && typeof exports === 'object' ? Object.entries(exports) : [['.', { types: './src/index.ts' }]];
    for (const [subpath, target] of entries) {
      const source = typeof target === 'object' && target !== null ? (target.source ?? target.types) : undefined;
      if (typeof source !== 'string' || !existsSync(join(root, dir, source))) continue;
      const specifier = subpath === '.' ? name : `${name}/${subpath.replace(/^\.\//, '')}`;
      moduleNameMapper[`^${specifier.replace(/[/.]/g, '\\$&')}$`] = `<rootDir>/${dir}/${source.replace(/^\.\//, '')}`;
    }
  }
}

export default {
  // jest's Node environment, which also disables each file's AsyncLocalStorage instances when it ends.
  testEnvironment: '<rootDir>/deploy/local/testenv/jest/environment.cjs',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  moduleNameMapper,
  testMatch: ['<rootDir>/{shared,services,deploy,clients,test}/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  globalSetup: '<rootDir>/deploy/local/testenv/jest/globalSetup.js',
  globalTeardown: '<rootDir>/deploy/local/testenv/jest/globalTeardown.js',
  testTimeout: 60_000,
  // Most of a whole-system or service suite's time is waiting (stacks starting, deadlines, restarts,
  // drains), so two workers per core. Measured back to back on a quiet 2-core machine (2026-11-28,
  // d83a1c7, the whole run): jest 650 s with four workers (1,101 CPU-s), 851 s with three (1,380
  // CPU-s); earlier, 1,249 s with three against 1,471 s with two. Counted here, not as '200%'.
  // Back to one more than the cores (2026-11-29, 8ce075a): with four, the four longest files (each a
  // whole system of its own, one with the real CLIs) start together, and on a loaded day two fresh
  // runs in two timed out real-CLI runs at 90 s while every file ran two to five times its recorded
  // time. Three finish later but stay inside the tests' own deadlines.
  maxWorkers: availableParallelism() + 1,
  // A worker is replaced once its heap passes this after a file. Workers otherwise grow through the
  // run (RSS 150 MB at its start, 1.5–1.7 GB near its end, 2026-11-29, b16a2e8), and every process
  // the in-process service suites spawn from them (git, mount, bwrap) forks that much memory: here
  // 100 spawns cost the parent 7.6 ms of CPU each at 53 MB and 42 ms at 1.1 GB (513 ms of wall time
  // each). That run spent a third of its CPU in the kernel (sys 1,410 s, user 2,811 s).
  workerIdleMemoryLimit: '512MB',
  reporters: ['default', '<rootDir>/scripts/jestSummaryReporter.cjs', '<rootDir>/scripts/jestWatchdogReporter.cjs'],
  // Longest first: suites with a system of their own, then the shared system's, then the rest.
  testSequencer: '<rootDir>/scripts/jestSequencer.cjs',
};
