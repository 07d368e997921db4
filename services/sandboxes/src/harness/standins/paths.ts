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
