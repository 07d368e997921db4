// Test helpers (not part of the package build): child processes speaking JSON lines (waiting: @ars/testenv).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { BusLogger } from '../logger.js';

export const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const fixturesDir = join(packageRoot, 'test', 'fixtures');

/** Small group timings so joins and rebalances take seconds, not a minute, against the mock. */
export const fastSession = { sessionTimeoutMs: 6_000, rebalanceTimeoutMs: 1_500, heartbeatIntervalMs: 300 } as const;

export type Line = Record<string, unknown>;

export interface FixtureProcess {
  readonly child: ChildProcess;
  readonly lines: Line[];
  /** Resolves with the first line (already seen or future) matching `predicate`. */
  waitFor(predicate: (line: Line) => boolean, timeoutMs?: number, what?: string): Promise<Line>;
  /** SIGKILL, and wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM, and wait for the exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
  readonly exited: Promise<number | string>;
}

const running = new Set<FixtureProcess>();

/** Runs `test/fixtures/<name>` with node (it imports the built `@ars/bus`: build first). */
export function startFixture(name: string, env: Record<string, string>): FixtureProcess {
  if (!existsSync(join(packageRoot, 'dist', 'index.js'))) {
    throw new Error('shared/bus/dist is missing: run `npx tsc -b tsconfig.build.json` before these tests');
  }
  const child = spawn(process.execPath, [join(fixturesDir, name)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Line[] = [];
  const listeners = new Set<() => void>();
  const stderr: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (text) => {
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null) lines.push(parsed as Line);
    } catch {
      return;
    }
    for (const listener of [...listeners]) listener();
  });
  createInterface({ input: child.stderr! }).on('line', (text) => {
    stderr.push(text);
    if (stderr.length > 50) stderr.shift();
  });
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const fixture: FixtureProcess = {
    child,
    lines,
    exited,
    waitFor(predicate, timeoutMs = 30_000, what = 'a matching line') {
      return new Promise<Line>((resolve, reject) => {
        const check = (): boolean => {
          const found = lines.find(predicate);
          if (found) {
            cleanup();
            resolve(found);
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`${name}: no ${what} within ${timeoutMs} ms; stderr:\n${stderr.join('\n')}`));
        }, timeoutMs);
        const onExit = (code: number | string): void => {
          if (!check()) {
            cleanup();
            reject(new Error(`${name} exited (${code}) before ${what}; stderr:\n${stderr.join('\n')}`));
          }
        };
        const cleanup = (): void => {
          clearTimeout(timer);
          listeners.delete(listener);
        };
        const listener = (): void => void check();
        if (check()) return;
        listeners.add(listener);
        void exited.then(onExit);
      });
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      running.delete(fixture);
    },
    async stop(graceMs = 10_000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      running.delete(fixture);
    },
  };
  running.add(fixture);
  return fixture;
}

/** Kills every fixture process still running (afterEach / afterAll). */
export async function killFixtures(): Promise<void> {
  await Promise.all([...running].map((f) => f.kill()));
}

/** A logger keeping every line in memory (and dropping nothing), for assertions. */
export function memoryLogger(): BusLogger & { entries: { level: string; msg: string; fields: Record<string, unknown> }[] } {
  const entries: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
  const make = (bindings: Record<string, unknown>): BusLogger => {
    const at =
      (level: string) =>
      (a: string | Record<string, unknown>, b?: string): void => {
        if (typeof a === 'string') entries.push({ level, msg: a, fields: { ...bindings } });
        else entries.push({ level, msg: b ?? '', fields: { ...bindings, ...a } });
      };
    return { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug'), child: (more) => make({ ...bindings, ...more }) };
  };
  return Object.assign(make({}), { entries });
}
