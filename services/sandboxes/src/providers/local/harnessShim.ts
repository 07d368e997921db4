// The harness CLI as the SDKs see it when the sandbox is an isolated local one: the SDKs spawn a
// local executable (bin/sandbox-shim.mjs → main() here), and it runs the real CLI inside bwrap with
// its argv, stdin, stdout, stderr and exit code. Its environment is the harness's allowlisted one
// (plus the provider key the SDK adds): bwrap gets exactly that, minus the launch description.
// Killed, it takes the sandbox with it (bwrap runs with --die-with-parent).
import type { SandboxedCommand } from './sandboxedProcess.js';
import { runSandboxed } from './sandboxedProcess.js';

/** The variable carrying the launch (paths and settings only, no secret); removed before bwrap starts. */
export const LAUNCH_VARIABLE = 'ARS_SANDBOX_LAUNCH';

/** Exit code when the sandbox could not be started at all. */
const UNSTARTED = 125;

export async function main(argv: string[]): Promise<number> {
  const raw = process.env[LAUNCH_VARIABLE];
  if (!raw) {
    process.stderr.write(`sandbox-shim: ${LAUNCH_VARIABLE} is required (this shim is started by the local provider)\n`);
    return UNSTARTED;
  }
  const launch = JSON.parse(raw) as SandboxedCommand;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && name !== LAUNCH_VARIABLE) env[name] = value;
  // stdin stays unread until the CLI runs (bwrap never reads it), so a start that is tried again loses none of it.
  const run = runSandboxed(
    { ...launch, command: [...launch.command, ...argv] },
    { env, stdin: 'inherit', stdout: 'inherit', stderr: (chunk) => process.stderr.write(chunk), detached: false },
  );
  // The SDK stops its CLI with a signal: the whole sandbox ends, and the shim exits once it is gone.
  for (const name of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(name, run.kill);
  const outcome = await run.outcome;
  if (outcome.ran) return outcome.exitCode;
  if (!outcome.killed) process.stderr.write(`sandbox-shim: the sandbox could not be started: ${outcome.reason}\n`);
  return UNSTARTED;
}
