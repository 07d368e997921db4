import { isSensitiveName } from './sensitiveNames.js';
import { REDACTED } from './patterns.js';
import { redactSecrets, type SanitizeTextOptions } from './redact.js';

/** A flag given alone (`--api-key`, `-Dpassword`): its value is the next argument. */
const LONE_FLAG = /^--?([A-Za-z_][\w.-]{0,127})$/;

/**
 * A command line given as separate arguments (a tool server's `args`, a spawned command), each
 * redacted as text, and the argument after a sensitive flag given alone (`["--api-key", "x"]`)
 * replaced whole: as text, `--api-key x` is one line, as arguments the value stands apart.
 */
export function redactArgv(args: readonly string[], options: SanitizeTextOptions = {}): string[] {
  return args.map((arg, index) => {
    const previous = index > 0 ? LONE_FLAG.exec(args[index - 1] ?? '') : null;
    if (previous && isSensitiveName(previous[1] ?? '') && !arg.startsWith('-')) return REDACTED;
    return redactSecrets(arg, options);
  });
}
