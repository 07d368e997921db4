// Entry of the harness adapters: runHarness() runs one agent turn through the harness's SDK.
import type { HarnessResult, RunHarnessOptions } from './adapter.js';
import { runClaudeCode } from './claudeCode.js';
import { runCodex } from './codex.js';

export * from './adapter.js';
export { standInExecutable, standInFiles } from './standInPaths.js';
export {
  MAX_THREAD_STATE_BYTES,
  ThreadStateError,
  ThreadTooLargeError,
  THREAD_HOME_ROOTS,
  collectThreadState,
  restoreThreadState,
  restoredThreadFiles,
  type ThreadFile,
  type ThreadLocation,
} from './threadState.js';
export { harnessModeOf, READ_ONLY_MODES, type HarnessMode } from './runModes.js';

export function runHarness(options: RunHarnessOptions): Promise<HarnessResult> {
  return options.harness === 'codex' ? runCodex(options) : runClaudeCode(options);
}
