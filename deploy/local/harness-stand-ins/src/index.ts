// @ars/harness-stand-ins: the stand-in CLIs (development infrastructure; never imported by production
// code) and their script language, which the model stand-in plays too, so both read a prompt alike.
import { fileURLToPath } from 'node:url';

export {
  DEFAULT_STEPS,
  FINDING_NOTES,
  NO_EARLIER_PROMPTS,
  STANDIN_FINDINGS_FENCE,
  STANDIN_FINDING_SEVERITIES,
  escapeText,
  fakeUsage,
  findingsMessage,
  locateFinding,
  modelAnswer,
  parseDirectives,
  recallAnswer,
  resolveInTree,
  treePath,
  unescapeText,
  type FindingOutcome,
  type Step,
} from './directives.js';

/** The launchers of the stand-in CLIs (bin/), by harness name; they run the built dist/. */
export const STAND_IN_LAUNCHERS = {
  codex: fileURLToPath(new URL('../bin/codex-standin.mjs', import.meta.url)),
  'claude-code': fileURLToPath(new URL('../bin/claude-code-standin.mjs', import.meta.url)),
} as const;
