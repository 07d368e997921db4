// The local provider's isolation, prepared once at start-up: bwrap found, the host's layout read, and
// a sandbox tried for real (namespaces, mounts). When any of it is missing, the service refuses to
// start (unless SANDBOX_ISOLATION=none).
import { chmod, chown, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareHostLayout, programPath, type SandboxUser } from './hostLayout.js';
import type { HostLayout } from './isolation.js';
import { runSandboxed, type SandboxedCommand } from './sandboxedProcess.js';

export interface LocalIsolation {
  bwrap: string;
  layout: HostLayout;
  /** The unprivileged host user every sandboxed process runs as; null when the service itself is not root (it runs them as itself). */
  user: SandboxUser | null;
  /** A private directory of this service (generated /etc files, the doors' sockets). */
  runtimeDir: string;
  close(): Promise<void>;
}

/** Why sandboxes cannot be isolated here (the start-up refusal's words). */
export class IsolationUnavailable extends Error {}

/**
 * `sandboxUid`: the host uid (and gid) sandboxed processes run as when the service is root (root
 * inside a user namespace is still the host's root to the kernel: a way out of the namespace would
 * be root's, and root ignores the process-count limit). The probe runs as that user and binds what
 * every sandbox binds (node, `probeFiles`), so a path it cannot pass is a refusal at start, naming it.
 */
export async function prepareIsolation(options: { sandboxUid?: number; probeFiles?: string[] } = {}): Promise<LocalIsolation> {
  const bwrap = await programPath('bwrap');
  if (!bwrap) throw new IsolationUnavailable('bwrap is not installed (Debian package bubblewrap)');
  const uid = options.sandboxUid ?? DEFAULT_SANDBOX_UID;
  let user: SandboxUser | null = null;
  if (process.getuid?.() === 0 && uid !== 0) {
    const setpriv = await programPath('setpriv');
    if (!setpriv) throw new IsolationUnavailable('setpriv is not installed (Debian package util-linux): sandboxes cannot run as SANDBOX_UID');
    user = { uid, gid: uid, setpriv };
  }
  const host = await prepareHostLayout(user);
  const isolation: LocalIsolation = { bwrap, layout: host.layout, user, runtimeDir: host.dir, close: host.remove };
  try {
    const probeDir = join(host.dir, 'probe');
    await mkdir(probeDir, { recursive: true });
    await chmod(probeDir, 0o700);
    if (user) await chown(probeDir, user.uid, user.gid);
    await probe(isolatedCommand(isolation, { sandboxDir: probeDir, cwd: probeDir, readOnly: options.probeFiles ?? [], command: ['/bin/true'] }));
  } catch (error) {
    await host.remove();
    throw error;
  }
  return isolation;
}

/** The description of one command in a sandbox under this isolation. */
export function isolatedCommand(isolation: LocalIsolation, command: Omit<SandboxedCommand, 'bwrap' | 'layout' | 'user'>): SandboxedCommand {
  return { bwrap: isolation.bwrap, layout: isolation.layout, ...(isolation.user ? { user: isolation.user } : {}), ...command };
}

/** SANDBOX_UID's default: far above any account a Debian machine hands out, so it owns nothing else. */
export const DEFAULT_SANDBOX_UID = 2_000_000;

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
  if (!outcome.ran)
    throw new IsolationUnavailable(
      `bwrap cannot create a sandbox (\`bwrap --unshare-all\`${command.user ? ` as uid ${command.user.uid}` : ''}): ${outcome.reason}${command.user ? ' (every folder above SANDBOX_ROOT, node and the harness CLIs must let others through: chmod o+x)' : ''}`,
    );
  if (outcome.exitCode !== 0)
    throw new IsolationUnavailable(`a command in a sandbox failed (/bin/true exited ${outcome.exitCode}: ${stderr.trim() || 'no output'})`);
}
