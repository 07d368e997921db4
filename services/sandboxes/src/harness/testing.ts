// Test helpers for the harness adapters run by this service: those of @ars/harnesses, whether the
// stand-in CLIs are built, and a runHarness of a stand-in that records what it reported.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runHarness, type HarnessEvent, type HarnessName, type HarnessResult } from '@ars/harnesses';
import { scrubbedEnv } from '@ars/harnesses/testing';
import { standInExecutable } from './standInPaths.js';

export { isAlive, makeWorkTree, scrubbedEnv, type WorkTree } from '@ars/harnesses/testing';

/** The stand-ins run the built JavaScript: fail loudly when it is missing. */
export function assertStandInsBuilt(): void {
  const built = join(dirname(dirname(standInExecutable('codex'))), 'dist', 'codexStandIn.js');
  if (!existsSync(built)) throw new Error(`build first (npx tsc -b tsconfig.build.json): ${built} is missing`);
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
