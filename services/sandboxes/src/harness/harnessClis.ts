// Which CLI runs each harness, as the settings declare it (HARNESS_CLIS, CODEX_PATH,
// CLAUDE_CODE_PATH): the executable, the files an isolated sandbox binds for it, and whether it
// calls a model. Every difference between the real CLIs and the stand-ins is here, as data; the
// code that runs a harness has no branch of its own for either.
import type { HarnessName } from './adapter.js';
import { standInExecutable, standInFiles } from './standInPaths.js';

export type HarnessClisKind = 'real' | 'stand-in';

export interface HarnessCliSetting {
  /** The CLI's path; undefined: the SDK's bundled CLI. */
  executablePath: string | undefined;
  /** Host paths an isolated sandbox binds read-only for it; undefined: what its path needs (its package). */
  files: string[] | undefined;
}

export interface HarnessClis {
  kind: HarnessClisKind;
  /** True for the real CLIs: each gets the way to its model (the model proxy). The stand-ins call none. */
  callsModel: boolean;
  byHarness: Record<HarnessName, HarnessCliSetting>;
}

export interface HarnessClisConfig {
  HARNESS_CLIS: HarnessClisKind;
  CODEX_PATH?: string | undefined;
  CLAUDE_CODE_PATH?: string | undefined;
}

export function harnessClis(config: HarnessClisConfig): HarnessClis {
  const setting = (harness: HarnessName, configured: string | undefined): HarnessCliSetting =>
    config.HARNESS_CLIS === 'stand-in'
      ? { executablePath: standInExecutable(harness), files: standInFiles(harness) }
      : { executablePath: configured === undefined || configured === 'bundled' ? undefined : configured, files: undefined };
  return {
    kind: config.HARNESS_CLIS,
    callsModel: config.HARNESS_CLIS === 'real',
    byHarness: { codex: setting('codex', config.CODEX_PATH), 'claude-code': setting('claude-code', config.CLAUDE_CODE_PATH) },
  };
}
