// The local provider's isolation, prepared once at start-up: bwrap found, the host's layout read, and
// a sandbox tried for real (namespaces, mounts). When any of it is missing, the service refuses to
// start (unless SANDBOX_ISOLATION=none).
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareHostLayout, programPath } from './hostLayout.js';
import type { HostLayout } from './isolation.js';
import { runSandboxed, type SandboxedCommand } from './sandboxedProcess.js';

export interface LocalIsolation {
  bwrap: string;
  layout: HostLayout;
  /** A private directory of this service (generated /etc files, the doors' sockets). */
  runtimeDir: string;
  close(): Promise<void>;
}

/** Why sandboxes cannot be isolated here (the start-up refusal's words). */
export class IsolationUnavailable extends Error {}

export async function prepareIsolation(): Promise<LocalIsolation> {
  const bwrap = await programPath('bwrap');
  if (!bwrap) throw new IsolationUnavailable('bwrap is not installed (Debian package bubblewrap)');
  const host = await prepareHostLayout();
  const isolation: LocalIsolation = { bwrap, layout: host.layout, runtimeDir: host.dir, close: host.remove };
  try {
    const probeDir = join(host.dir, 'probe');
    await mkdir(probeDir, { recursive: true });
    await chmod(probeDir, 0o700);
    await probe(isolatedCommand(isolation, { sandboxDir: probeDir, cwd: probeDir, readOnly: [], command: ['/bin/true'] }));
  } catch (error) {
    await host.remove();
    throw error;
  }
  return isolation;
}

/** The description of one command in a sandbox under this isolation. */
export function isolatedCommand(isolation: LocalIsolation, command: Omit<SandboxedCommand, 'bwrap' | 'layout'>): SandboxedCommand {
  return { bwrap: isolation.bwrap, layout: isolation.layout, ...command };
}

/**
 * One sandbox started for real. A set-up that fails once (a busy kernel) is tried again by
 * runSandboxed, as every command's is: only a failure that repeats means the machine cannot isolate.
 */
async function probe(command: SandboxedCommand): Promise<void> {
  let stderr = '';
  const run = runSandboxed(command, {
    env: { PATH: '/usr/bin:/bin' },
    stdin: 'ignore',
    stdout: () => undefined,
    stderr: (chunk) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-500);
    },
    detached: false,
  });
  const outcome = await run.outcome;
  if (!outcome.ran) throw new IsolationUnavailable(`bwrap cannot create a sandbox (\`bwrap --unshare-all\`): ${outcome.reason}`);
  if (outcome.exitCode !== 0)
    throw new IsolationUnavailable(`a command in a sandbox failed (/bin/true exited ${outcome.exitCode}: ${stderr.trim() || 'no output'})`);
}
