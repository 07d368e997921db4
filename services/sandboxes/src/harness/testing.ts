// Test helpers for the harness adapters: a temporary git work tree and a recording runHarness.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runHarness } from './index.js';
import type { HarnessEvent, HarnessName, HarnessResult } from './adapter.js';
import { standInExecutable } from './standInPaths.js';

export interface WorkTree {
  dir: string;
  cleanup: () => Promise<void>;
}

export async function makeWorkTree(): Promise<WorkTree> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'ars-harness-')));
  const git = (...args: string[]): void => {
    execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  };
  git('init', '-q', '-b', 'main');
  await writeFile(join(dir, 'README.md'), '# fixture\n');
  git('add', 'README.md');
  git('-c', 'user.name=test', '-c', 'user.email=test@example.invalid', 'commit', '-q', '-m', 'init');
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** The stand-ins run the built JavaScript: fail loudly when it is missing. */
export function assertStandInsBuilt(): void {
  const built = join(dirname(dirname(standInExecutable('codex'))), 'dist', 'codexStandIn.js');
  if (!existsSync(built)) throw new Error(`build first (npx tsc -b tsconfig.build.json): ${built} is missing`);
}

/** A minimal, explicit environment: what a scrubbed sandbox environment would hold. */
export function scrubbedEnv(home: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' };
}

export interface Recorded {
  result: HarnessResult;
  events: HarnessEvent[];
}

export async function record(
  harness: HarnessName,
  prompt: string,
  cwd: string,
  extra: {
    signal?: AbortSignal;
    executablePath?: string;
    model?: string;
    /** HOME of the harness (where it keeps its threads); the work tree when absent. */
    home?: string;
    resumeThreadId?: string;
    onEvent?: (e: HarnessEvent) => void;
  } = {},
): Promise<Recorded> {
  const events: HarnessEvent[] = [];
  const result = await runHarness({
    harness,
    prompt,
    cwd,
    env: scrubbedEnv(extra.home ?? cwd),
    signal: extra.signal ?? new AbortController().signal,
    executablePath: extra.executablePath ?? standInExecutable(harness),
    ...(extra.model ? { model: extra.model } : {}),
    ...(extra.resumeThreadId ? { resumeThreadId: extra.resumeThreadId } : {}),
    onEvent: async (event) => {
      events.push(event);
      extra.onEvent?.(event);
    },
  });
  return { result, events };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
