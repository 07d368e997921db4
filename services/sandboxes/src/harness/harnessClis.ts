// Which CLI runs each harness, as the settings declare it: HARNESS_CLIS gives the default of both
// (the real CLIs, or the stand-ins), and CODEX_PATH / CLAUDE_CODE_PATH, set to a path, name that
// harness's (real) CLI whatever the default. Per harness: the executable, the files an isolated
// sandbox binds for it, and whether it is a stand-in (which calls no model). Every difference
// between the real CLIs and the stand-ins is here, as data; the code that runs a harness has no
// branch of its own for either.
import type { HarnessName } from '@ars/harnesses';
import { standInExecutable, standInFiles, standInToolServer, type StandInToolServerFiles } from './standInPaths.js';

export type HarnessClisKind = 'real' | 'stand-in';

export interface HarnessCliSetting {
  /** The CLI's path; undefined: the SDK's bundled CLI. */
  executablePath: string | undefined;
  /** Host paths an isolated sandbox binds read-only for it; undefined: what its path needs (its package). */
  files: string[] | undefined;
  /** A scripted stand-in: it calls no model (no model access), and its runs' `runtime.provider` says so. */
  standIn: boolean;
  /** The model stand-in's tool server, handed to every run of a real CLI (HARNESS_STAND_IN_TOOLS=on); else null. */
  standInTools: StandInToolServerFiles | null;
}

export type HarnessClis = Record<HarnessName, HarnessCliSetting>;

export interface HarnessClisConfig {
  HARNESS_CLIS: HarnessClisKind;
  HARNESS_STAND_IN_TOOLS?: 'on' | 'off';
  CODEX_PATH?: string | undefined;
  CLAUDE_CODE_PATH?: string | undefined;
}

export function harnessClis(config: HarnessClisConfig): HarnessClis {
  // The stand-in CLIs play `@tool` themselves; a real CLI needs the tool server for it.
  const standInTools = config.HARNESS_STAND_IN_TOOLS === 'on' ? standInToolServer() : null;
  const setting = (harness: HarnessName, configured: string | undefined): HarnessCliSetting => {
    if (configured !== undefined && configured !== 'bundled') return { executablePath: configured, files: undefined, standIn: false, standInTools };
    if (configured === undefined && config.HARNESS_CLIS === 'stand-in') {
      return { executablePath: standInExecutable(harness), files: standInFiles(harness), standIn: true, standInTools: null };
    }
    return { executablePath: undefined, files: undefined, standIn: false, standInTools };
  };
  return { codex: setting('codex', config.CODEX_PATH), 'claude-code': setting('claude-code', config.CLAUDE_CODE_PATH) };
}
