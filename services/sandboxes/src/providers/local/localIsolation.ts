// The local provider's isolation, prepared once at start-up: bwrap and slirp4netns found, the host's
// layout read, and both tried for real (namespaces, mounts, a network attached). When any of it is
// missing, the service refuses to start (unless SANDBOX_ISOLATION=none).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareHostLayout, programPath } from './hostLayout.js';
import type { HostLayout } from './isolation.js';
import { runSandboxed, type SandboxedCommand } from './sandboxedProcess.js';

export interface LocalIsolation {
  bwrap: string;
  slirp: string;
  layout: HostLayout;
  /** A private directory of this service (generated /etc files, API sockets). */
  runtimeDir: string;
  close(): Promise<void>;
}

/** Why sandboxes cannot be isolated here (the start-up refusal's words). */
export class IsolationUnavailable extends Error {}

export async function prepareIsolation(): Promise<LocalIsolation> {
  const bwrap = await programPath('bwrap');
  if (!bwrap) throw new IsolationUnavailable('bwrap is not installed (Debian package bubblewrap)');
  const slirp = await programPath('slirp4netns');
  if (!slirp) throw new IsolationUnavailable('slirp4netns is not installed (Debian package slirp4netns)');
  const host = await prepareHostLayout();
  const isolation: LocalIsolation = { bwrap, slirp, layout: host.layout, runtimeDir: host.dir, close: host.remove };
  try {
    const probeDir = join(host.dir, 'probe');
    await mkdir(probeDir, { recursive: true });
    for (const network of ['none', 'internet'] as const)
      await probe(isolatedCommand(isolation, { sandboxDir: probeDir, cwd: probeDir, readOnly: [], network, command: ['/bin/true'] }));
  } catch (error) {
    await host.remove();
    throw error;
  }
  return isolation;
}

/** The description of one command in a sandbox under this isolation. */
export function isolatedCommand(isolation: LocalIsolation, command: Omit<SandboxedCommand, 'bwrap' | 'slirp' | 'layout' | 'runtimeDir'>): SandboxedCommand {
  return { bwrap: isolation.bwrap, slirp: isolation.slirp, layout: isolation.layout, runtimeDir: isolation.runtimeDir, ...command };
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
