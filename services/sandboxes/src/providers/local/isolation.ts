// How a local sandbox's command is locked in: the bubblewrap argument list, built from a plain
// description (a pure function), so what is visible inside is stated in one place and unit-tested.
// Own user (capabilities dropped), PID, IPC, UTS, mount and network namespaces. Read-only: the
// system directories, a few /etc files, node and the harness's own files. Writable: the sandbox's
// directory (at the same path as outside, so cwd and event paths need no translation) and a
// private /tmp. Nothing else of the host (the project, SANDBOX_ROOT's other sandboxes, snapshots,
// the source host, /root, /home) exists inside.

/** How the host's top-level system directories exist: a symlink (usr-merged Debian: `/bin -> usr/bin`) or a directory. */
export type SystemEntry = { path: string; symlink: string } | { path: string; directory: true };

/** The host as a sandbox sees it, found once (see hostLayout.ts). */
export interface HostLayout {
  /** `/usr` and the `/bin`, `/sbin`, `/lib*` entries that exist. */
  system: SystemEntry[];
  /** `/etc` entries copied from the host when they exist (certificates, name service, alternatives...). */
  etcFromHost: string[];
  /** Files written for the sandbox (`hosts`, `resolv.conf`, `passwd`, `group`): name in /etc → host path. */
  etcGenerated: Record<string, string>;
  /** node itself (its real path), bound when it is not under a system directory. */
  node: string;
}

export interface IsolationSpec {
  layout: HostLayout;
  /** The sandbox's own directory: the only writable host path, bound at the same path. */
  sandboxDir: string;
  /** Where the command starts (inside sandboxDir). */
  cwd: string;
  /** A directory of the sandbox (on its size-limited disk) seen as `/tmp` and `/var/tmp`; absent: RAM file systems. */
  tmpDir?: string;
  /** More host paths bound read-only at the same path (the harness CLI's files). */
  readOnly: string[];
  /** Paths inside sandboxDir bound read-only over it: a read-only run's working tree (the rest of the sandbox, its home, stays writable). */
  readOnlyWithin?: string[];
  /**
   * Host Unix sockets (or a folder holding one) bound at a path of their own inside (`/run/ars/…`):
   * a door to one host service (the model gateway, the egress proxy) or from the host (a dev
   * server's preview), never a route: the sandbox has no network but its own loopback.
   */
  sockets?: BoundSocket[];
  /** bwrap reports the sandbox's PID 1 (as the host sees it) on this fd. */
  infoFd?: number;
  /** argv of the command run inside. */
  command: string[];
}

export interface BoundSocket {
  /** The socket (or its folder) on the host (outside every sandbox directory). */
  host: string;
  /** Where the sandbox sees it. */
  inside: string;
}

/** bwrap's arguments (without `bwrap` itself) for the spec. */
export function bwrapArguments(spec: IsolationSpec): string[] {
  const { layout } = spec;
  const args = [
    '--unshare-all',
    // A user namespace is required (not `-try`): without one the command would be the host's root.
    '--unshare-user',
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
    '--hostname',
    'sandbox',
  ];
  for (const entry of layout.system) {
    if ('symlink' in entry) args.push('--symlink', entry.symlink, entry.path);
    else args.push('--ro-bind', entry.path, entry.path);
  }
  args.push('--proc', '/proc', '--dev', '/dev');
  // On the sandbox's own disk when it has one: temporary files count against its disk limit, not the host's memory.
  if (spec.tmpDir !== undefined) args.push('--bind', spec.tmpDir, '/tmp', '--bind', spec.tmpDir, '/var/tmp');
  else args.push('--tmpfs', '/tmp', '--tmpfs', '/var/tmp');
  args.push('--tmpfs', '/etc');
  for (const path of layout.etcFromHost) args.push('--ro-bind-try', path, path);
  for (const [name, file] of Object.entries(layout.etcGenerated)) args.push('--ro-bind', file, `/etc/${name}`);
  args.push('--remount-ro', '/etc');
  if (!underSystem(layout, layout.node)) args.push('--ro-bind', layout.node, layout.node);
  for (const path of spec.readOnly) {
    if (!underSystem(layout, path)) args.push('--ro-bind', path, path);
  }
  args.push('--bind', spec.sandboxDir, spec.sandboxDir);
  for (const path of spec.readOnlyWithin ?? []) args.push('--ro-bind', path, path);
  // Connecting needs write permission on the socket: a read-only bind would refuse it.
  for (const socket of spec.sockets ?? []) args.push('--bind', socket.host, socket.inside);
  args.push('--chdir', spec.cwd);
  if (spec.infoFd !== undefined) args.push('--info-fd', String(spec.infoFd));
  args.push('--', ...spec.command);
  return args;
}

/** True when `path` lies under a system directory already bound read-only. */
function underSystem(layout: HostLayout, path: string): boolean {
  return layout.system.some((entry) => 'directory' in entry && (path === entry.path || path.startsWith(`${entry.path}/`)));
}
