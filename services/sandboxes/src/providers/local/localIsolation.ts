// The local provider's isolation, prepared once at start-up: bwrap and slirp4netns found, the host's
// layout read, and both tried for real (namespaces, mounts, a network attached). When any of it is
// missing, the service refuses to start (unless SANDBOX_ISOLATION=none).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareHostLayout, programPath } from './hostLayout.js';
import type { HostLayout, SandboxNetwork } from './isolation.js';
import { startSandboxed, type SandboxedCommand } from './sandboxedProcess.js';

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
    const probe = join(host.dir, 'probe');
    await mkdir(probe, { recursive: true });
    for (const network of ['none', 'internet'] as const)
      await tryUpTo(PROBE_ATTEMPTS, () =>
        tryOnce(isolatedCommand(isolation, { sandboxDir: probe, cwd: probe, readOnly: [], network, command: ['/bin/true'] })),
      );
  } catch (error) {
    await host.remove();
    throw error;
  }
  return isolation;
}

/** The description of one command in a sandbox under this isolation. */
export function isolatedCommand(
  isolation: LocalIsolation,
  command: { sandboxDir: string; cwd: string; readOnly: string[]; network: SandboxNetwork; forwardPort?: number; command: string[] },
): SandboxedCommand {
  return { bwrap: isolation.bwrap, slirp: isolation.slirp, layout: isolation.layout, runtimeDir: isolation.runtimeDir, ...command };
}

/**
 * Setting up a namespace can fail once on a busy kernel (seen: bwrap's `loopback: Failed RTM_NEWADDR:
 * No child processes` while dozens of sandboxes started): only a failure that repeats means the
 * machine cannot isolate, so the probe is tried again before the service refuses to start.
 */
const PROBE_ATTEMPTS = 3;
const PROBE_PAUSE_MS = 250;

async function tryUpTo(attempts: number, probe: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await probe();
    } catch (error) {
      if (attempt >= attempts || !(error instanceof IsolationUnavailable)) throw error;
      await new Promise((resolve) => setTimeout(resolve, PROBE_PAUSE_MS));
    }
  }
}

function tryOnce(command: SandboxedCommand): Promise<void> {
  return new Promise((resolve, reject) => {
    const { child, started } = startSandboxed(command, { env: { PATH: '/usr/bin:/bin' }, stdio: ['ignore', 'ignore', 'pipe'], detached: false });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-500);
    });
    let setup: Error | undefined;
    started.catch((error: unknown) => {
      setup = error instanceof Error ? error : new Error(String(error));
    });
    child.once('error', (error) => reject(new IsolationUnavailable(`bwrap could not start: ${error.message}`)));
    child.once('close', (code) => {
      if (code === 0 && !setup) resolve();
      else if (setup) reject(new IsolationUnavailable(`a sandbox's network could not be set up with slirp4netns: ${setup.message}`));
      else
        reject(
          new IsolationUnavailable(
            `bwrap cannot create the sandbox's namespaces (\`bwrap --unshare-all\` exited ${code ?? 'on a signal'}: ${stderr.trim() || 'no output'})`,
          ),
        );
    });
  });
}
