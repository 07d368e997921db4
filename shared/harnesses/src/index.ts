// @ars/harnesses: the Codex and Claude Code adapters. runHarness() runs one agent turn of a harness's
// CLI through its SDK and maps what the CLI prints to HarnessEvents; the thread state a conversation
// keeps between runs; the run modes.
import type { HarnessResult, RunHarnessOptions } from './adapter.js';
import { runClaudeCode } from './claudeCode.js';
import { runCodex } from './codex.js';

export * from './adapter.js';
export { ClaudeStreamMapper } from './claudeCode.js';
export { mapCodexEvent, newTurnState } from './codex.js';
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
