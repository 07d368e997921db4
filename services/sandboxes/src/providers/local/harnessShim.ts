// The harness CLI as the SDKs see it when the sandbox is an isolated local one: the SDKs spawn a
// local executable, bin/sandbox-shim (a POSIX shell script: nothing to start in front of the CLI but
// a shell), which runs the real CLI inside bwrap with its argv, stdin, stdout, stderr and exit code,
// starting a sandbox whose set-up failed again as runSandboxed does (its comments say how). Its
// environment is the harness's allowlisted one (plus the provider key the SDK adds): bwrap gets
// exactly that, minus the launch. Killed, it takes the sandbox with it (bwrap runs with --die-with-parent).
import { fileURLToPath } from 'node:url';
import { RAN_FD, sandboxedArgv, type SandboxedCommand } from './sandboxedProcess.js';

/** The variable carrying the launch (the sandboxed command's words: paths and settings only, no secret); removed before bwrap starts. */
export const LAUNCH_VARIABLE = 'ARS_SANDBOX_ARGV';

/** Where the shim keeps its small state (a folder of its own, removed when it exits): the service's private runtime directory. */
export const STATE_DIR_VARIABLE = 'ARS_SANDBOX_SHIM_DIR';

/** What the harness SDKs spawn when sandboxes are isolated. */
export const SANDBOX_SHIM = fileURLToPath(new URL('../../../bin/sandbox-shim', import.meta.url));

/** Where the shim keeps the real stderr for the CLI while bwrap's own words go to a pipe of its own. */
const STDERR_FD = 4;

/** The CLI's first step inside: say it runs, let go of the marker, take the real stderr back, become the CLI. */
const ANNOUNCE_TO_SHIM = ['/bin/sh', '-c', `printf 1 >&${RAN_FD}; exec ${RAN_FD}>&- 2>&${STDERR_FD} ${STDERR_FD}>&-; exec "$@"`, 'sandbox'];

/** The launch for the shim: every word of the sandboxed command, quoted for sh (the SDK's arguments are appended by the shim). */
export function shimLaunch(command: SandboxedCommand): string {
  return sandboxedArgv(command, { announce: ANNOUNCE_TO_SHIM })
    .map((word) => `'${word.replaceAll("'", `'\\''`)}'`)
    .join(' ');
}
