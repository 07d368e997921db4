// The host side of a local sandbox's doors. A sandbox has no network of its own; what it may reach
// outside, and what may reach it, goes through Unix sockets bound into it:
// - egress: one HTTP CONNECT proxy per sandbox and phase (egress/egressProxy.ts), opened when a
//   command of that phase first runs and only when its allowlist names anything — `install` steps
//   get SANDBOX_INSTALL_EGRESS_ALLOW, dev servers and the agent's turn SANDBOX_EGRESS_ALLOW. Its
//   socket is the sandbox's own: no other sandbox can use its allowlist. Each decision is reported.
// - preview: a dev server's port, reached from the host's 127.0.0.1 through a socket the sandbox's
//   forwarder listens on, so forwarding a port grants the sandbox no route out.
import { randomBytes } from 'node:crypto';
import { chown, mkdir, rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import type { EgressAllowList } from '../../domain/egressPolicy.js';
import { startEgressProxy, type EgressProxy } from '../../egress/egressProxy.js';
import { oncePerDestination, proxyEnvironment as proxyVariables, type SandboxEgressSettings, type SandboxOwner } from '../../egress/sandboxEgress.js';
import { pipeBoth } from '../../modelAccess/loopbackForwarder.js';

export type EgressPhase = 'install' | 'agent';
export type { SandboxEgressSettings, SandboxOwner };

/** Where a sandbox sees the egress proxy and the preview folder, and the loopback port its forwarder gives the proxy. */
export const EGRESS_SOCKET_INSIDE = '/run/ars/egress.sock';
export const EGRESS_PORT_INSIDE = 4320;
export const PREVIEW_DIR_INSIDE = '/run/ars/preview';

/** The variables every proxy-aware tool reads (npm, pip, git, curl, node's fetch with them set); the sandbox's own loopback stays direct. */
export function proxyEnvironment(): Record<string, string> {
  return proxyVariables(`http://127.0.0.1:${EGRESS_PORT_INSIDE}`);
}

export class SandboxDoors {
  private readonly owners = new Map<string, SandboxOwner>();
  private readonly proxies = new Map<string, Promise<EgressProxy>>();

  constructor(
    private readonly runtimeDir: string,
    private readonly settings: SandboxEgressSettings,
    /** The sandbox user, who must connect to the proxies' sockets and make the previews'; null: the service's own. */
    private readonly user: { uid: number; gid: number } | null = null,
  ) {}

  /** Records whose a sandbox (by its directory) is. */
  register(dir: string, owner: SandboxOwner): void {
    this.owners.set(dir, owner);
  }

  /** The sandbox's egress proxy socket for a phase (opened once); null when that phase may reach nothing. */
  async egress(sandboxId: string, dir: string, phase: EgressPhase): Promise<string | null> {
    const allow = this.settings[phase];
    if (allow.rules.length === 0) return null;
    const key = `${dir}\n${phase}`;
    let proxy = this.proxies.get(key);
    if (!proxy) {
      proxy = this.openProxy(sandboxId, dir, phase, allow);
      this.proxies.set(key, proxy);
      proxy.catch(() => this.proxies.delete(key));
    }
    return (await proxy).socketPath;
  }

  private async openProxy(sandboxId: string, dir: string, phase: EgressPhase, allow: EgressAllowList): Promise<EgressProxy> {
    const folder = join(this.runtimeDir, 'egress');
    // Passable by the sandbox user (bwrap binds the socket as it); the socket itself is its own.
    await mkdir(folder, { recursive: true, mode: 0o711 });
    const owner = this.owners.get(dir) ?? { sandboxRecordId: sandboxId, runId: null };
    const onDecision = this.settings.onDecision;
    return startEgressProxy({
      socketPath: join(folder, `${sandboxId}-${phase}-${randomBytes(4).toString('hex')}.sock`),
      allow,
      onDecision: oncePerDestination((event) => onDecision?.(owner, phase, event)),
      ...(this.user ? { socketOwner: this.user } : {}),
      ...(this.settings.lookup ? { lookup: this.settings.lookup } : {}),
    });
  }

  /**
   * A dev server's port on the host's 127.0.0.1, piped to the socket the sandbox's forwarder listens
   * on in `folder` (bound into the sandbox at PREVIEW_DIR_INSIDE). Closed with `close()`.
   */
  async preview(sandboxId: string, hostPort: number): Promise<{ folder: string; socketInside: string; close(): Promise<void> }> {
    const folder = join(this.runtimeDir, 'preview', `${sandboxId}-${randomBytes(4).toString('hex')}`);
    await mkdir(join(this.runtimeDir, 'preview'), { recursive: true, mode: 0o711 });
    await mkdir(folder, { mode: 0o700 });
    // The sandbox's forwarder (the sandbox user) makes the socket here.
    if (this.user) await chown(folder, this.user.uid, this.user.gid);
    const socketHost = join(folder, 'preview.sock');
    const open = new Set<Socket>();
    const server: Server = createServer((client: Socket) => {
      open.add(client);
      client.once('close', () => open.delete(client));
      pipeBoth(client, connect(socketHost));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(hostPort, '127.0.0.1', () => resolve());
    });
    return {
      folder,
      socketInside: `${PREVIEW_DIR_INSIDE}/preview.sock`,
      close: async () => {
        for (const client of open) client.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await rm(folder, { recursive: true, force: true });
      },
    };
  }

  /** Closes a sandbox's proxies (its release). */
  async release(dir: string): Promise<void> {
    this.owners.delete(dir);
    const closing: Promise<void>[] = [];
    for (const [key, proxy] of this.proxies) {
      if (!key.startsWith(`${dir}\n`)) continue;
      this.proxies.delete(key);
      closing.push(proxy.then((open) => open.close()).catch(() => undefined));
    }
    await Promise.all(closing);
  }

  async close(): Promise<void> {
    await Promise.all([...new Set([...this.proxies.keys()].map((key) => key.split('\n')[0] ?? ''))].map((dir) => this.release(dir)));
  }
}
