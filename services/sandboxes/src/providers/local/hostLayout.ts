// The host as a sandbox sees it: which system directories exist and how, which /etc files are
// copied, and the few /etc files written for sandboxes (a private directory of this service).
import { execFile } from 'node:child_process';
import { chmod, lstat, mkdtemp, readlink, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { HostLayout, SystemEntry } from './isolation.js';

const run = promisify(execFile);

const SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * What commands need of /etc: certificates, name service and dynamic linker settings, the
 * alternatives symlinks /usr/bin points into, time zones. Not /etc/ssl/private, not the whole /etc.
 */
const ETC_FROM_HOST = [
  '/etc/ssl/certs',
  '/etc/ssl/openssl.cnf',
  '/etc/ca-certificates',
  '/etc/ca-certificates.conf',
  '/etc/alternatives',
  '/etc/nsswitch.conf',
  '/etc/host.conf',
  '/etc/gai.conf',
  '/etc/protocols',
  '/etc/services',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/localtime',
  '/etc/mime.types',
  '/etc/os-release',
  '/etc/debian_version',
];

export interface HostLayoutHandle {
  layout: HostLayout;
  /** The private directory of the written /etc files (also where the doors' sockets go). */
  dir: string;
  /** Removes the directory. */
  remove(): Promise<void>;
}

/** The unprivileged host user a sandbox's processes run as (SANDBOX_UID). */
export interface SandboxUser {
  uid: number;
  gid: number;
  /** util-linux's setpriv, which becomes the user before bwrap starts. */
  setpriv: string;
}

/** Finds the host's layout and writes the sandbox's /etc files into a new private directory (`user`: the sandbox's own uid and gid, else the service's). */
export async function prepareHostLayout(user: Pick<SandboxUser, 'uid' | 'gid'> | null = null): Promise<HostLayoutHandle> {
  const system: SystemEntry[] = [];
  for (const path of SYSTEM) {
    const info = await lstat(path).catch(() => null);
    if (info?.isSymbolicLink()) system.push({ path, symlink: await readlink(path) });
    else if (info?.isDirectory()) system.push({ path, directory: true });
  }
  const dir = await mkdtemp(join(tmpdir(), 'ars-sandbox-etc-'));
  // Passable, not readable, by the sandbox user: bwrap, running as it, binds the /etc files and the doors' sockets from here.
  await chmod(dir, 0o711);
  const uid = user?.uid ?? process.getuid?.() ?? 0;
  const gid = user?.gid ?? process.getgid?.() ?? 0;
  const files: Record<string, string> = {
    hosts: '127.0.0.1\tlocalhost sandbox\n::1\tlocalhost ip6-localhost ip6-loopback\n',
    // No DNS of its own: the egress proxy resolves the names a sandbox asks for (and checks them).
    'resolv.conf': '# no resolver: names are resolved by the egress proxy (HTTPS_PROXY)\n',
    passwd: [
      'root:x:0:0:root:/root:/bin/sh',
      ...(uid === 0 ? [] : [`sandbox:x:${uid}:${gid}:sandbox:/tmp:/bin/sh`]),
      'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin',
      '',
    ].join('\n'),
    group: ['root:x:0:', ...(gid === 0 ? [] : [`sandbox:x:${gid}:`]), 'nogroup:x:65534:', ''].join('\n'),
  };
  const etcGenerated: Record<string, string> = {};
  for (const [name, content] of Object.entries(files)) {
    const file = join(dir, name);
    await writeFile(file, content, { mode: 0o644 });
    etcGenerated[name] = file;
  }
  return {
    layout: { system, etcFromHost: ETC_FROM_HOST, etcGenerated, node: await realpath(process.execPath) },
    dir,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The absolute path of a program on the service's PATH, or null. */
export async function programPath(name: string): Promise<string | null> {
  try {
    const { stdout } = await run('/bin/sh', ['-c', `command -v ${name}`], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    const path = stdout.trim();
    return path.startsWith('/') ? path : null;
  } catch {
    return null;
  }
}
