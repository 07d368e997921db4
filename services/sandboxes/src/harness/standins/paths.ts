// Where the stand-in launchers are (services/sandboxes/bin), from the sources or the build alike.
import { fileURLToPath } from 'node:url';
import type { HarnessName } from '../adapter.js';

const LAUNCHERS: Record<HarnessName, string> = {
  codex: 'codex-standin.mjs',
  'claude-code': 'claude-code-standin.mjs',
};

/** Absolute path of the stand-in executable of a harness (needs the package built: it runs dist/). */
export function standInExecutable(harness: HarnessName): string {
  return fileURLToPath(new URL(`../../../bin/${LAUNCHERS[harness]}`, import.meta.url));
}

/** True when `path` is the stand-in of the harness (a scripted agent: it needs no network). */
export function isStandIn(harness: HarnessName, path: string | undefined): boolean {
  return path !== undefined && path === standInExecutable(harness);
}

/**
 * The files a stand-in needs to run (bound read-only into an isolated sandbox): its launcher, the
 * built stand-in modules, and the package.json that makes them ES modules. Nothing else of the project.
 */
export function standInFiles(harness: HarnessName): string[] {
  return [
    standInExecutable(harness),
    fileURLToPath(new URL('../../../dist/harness/standins', import.meta.url)),
    fileURLToPath(new URL('../../../package.json', import.meta.url)),
  ];
}
