// A size-limited disk per local sandbox: a sparse ext4 image mounted (loop, nosuid, nodev) at the
// sandbox's directory, so one sandbox filling its disk fills only its own. The images are made
// ahead of need (a small pool refilled in the background), so a run's allocation only mounts one.
// Releasing unmounts and deletes the image: the sandbox's files go with it at once, with no
// file-by-file removal of node_modules.
//
// Images are named `ars-disk-<instance>-<tag>.img` (instance: newInstanceName() of cgroups.ts), so a
// service starting up can tell what a dead instance left (sweepStaleDisks) from what a live one uses.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, readdir, realpath, rmdir, statfs, unlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describeError, errorCode, INSTANCE_NAME_SOURCE, instanceIsStale, newInstanceName, unescapeMountField } from './cgroups.js';

const run = promisify(execFile);

export interface DiskOwner {
  uid: number;
  gid: number;
}

export interface SandboxDisksOptions {
  /** Where the images live: a directory of this service's, never inside a sandbox. */
  imageDir: string;
  sizeMb: number;
  /** Owner of each disk's root directory (the sandbox's user). */
  owner: DiskOwner;
  /** This service process's instance (newInstanceName()): it names the images. */
  instance: string;
  /** Images kept ready (default 2). */
  poolSize?: number;
}

export interface DiskUsage {
  usedBytes: number;
  totalBytes: number;
  /** What the sandbox's user can still write (no blocks are reserved for root). */
  availableBytes: number;
  totalInodes: number;
  availableInodes: number;
}

export interface SandboxDisk {
  readonly mountPoint: string;
  readonly image: string;
  usage(): Promise<DiskUsage>;
  /** Whether the disk is (as good as) full: the sign that a write failed for want of space. */
  isFull(): Promise<boolean>;
  /** Unmounts (lazily when still busy) and deletes the image. Call after the sandbox's processes are killed. Safe twice. */
  release(): Promise<void>;
}

export type DiskSupport = { available: true; how: string } | { available: false; why: string };

export interface DiskSweep {
  unmounted: string[];
  deleted: string[];
  failed: string[];
}

const MiB = 1024 * 1024;
const IMAGE_PREFIX = 'ars-disk-';
/** `ars-disk-<instance>-<tag>[.img]`: images, and the probe's mount point. */
const OUR_ENTRY = new RegExp(`^${IMAGE_PREFIX}(${INSTANCE_NAME_SOURCE})-([0-9a-z]+)(\\.img)?$`);
/** nosuid, nodev: nothing on a sandbox's disk can raise privileges or reach a device. noinit_itable: no background inode-table zeroing (a fresh sparse file reads as zeros) filling the image. */
const MOUNT_OPTIONS = 'loop,nosuid,nodev,noinit_itable';
/** The CLIs' own words, whatever the locale: some of their messages are matched below. */
function cliEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin', LC_ALL: 'C' };
}

/** A pool of prepared images, and the mounting of one per sandbox. */
export class SandboxDisks {
  private readonly imageDir: string;
  private readonly sizeBytes: number;
  private readonly owner: DiskOwner;
  private readonly instance: string;
  private readonly poolSize: number;
  private readonly ready: string[] = [];
  private readonly making = new Set<Promise<void>>();
  private closed = false;
  /** The last background failure; the next take() makes its image in the foreground and fails with the real cause. */
  private lastError: unknown = null;

  constructor(options: SandboxDisksOptions) {
    if (!Number.isSafeInteger(options.sizeMb) || options.sizeMb < 2) throw new RangeError(`sizeMb must be an integer of at least 2, not ${options.sizeMb}`);
    this.imageDir = resolve(options.imageDir);
    this.sizeBytes = options.sizeMb * MiB;
    this.owner = options.owner;
    this.instance = options.instance;
    this.poolSize = options.poolSize ?? 2;
    this.fill();
  }

  /** Images ready to be taken now. */
  get readyCount(): number {
    return this.ready.length;
  }

  /** The last background failure to prepare an image (a full host disk…), or null. */
  get backgroundError(): unknown {
    return this.lastError;
  }

  /** Resolves when the images being prepared are (the pool is full unless one failed). */
  async whenFilled(): Promise<void> {
    while (this.making.size > 0) await Promise.all([...this.making]);
  }

  /** Mounts a prepared image (or one made now when none is ready) at `mountPoint`, an existing empty directory. */
  async take(mountPoint: string): Promise<SandboxDisk> {
    if (this.closed) throw new Error('the sandbox disks are closed');
    const target = resolve(mountPoint);
    const entries = await readdir(target);
    if (entries.length > 0) throw new Error(`${target} is not empty: a sandbox's disk is mounted on an empty directory`);
    const image = this.ready.shift() ?? (await this.makeImage());
    this.fill();
    try {
      await mountImage(image, target);
    } catch (error) {
      await unlink(image).catch(() => undefined);
      throw error;
    }
    // mkfs's lost+found (root's, 0700) would be the one thing in a directory the sandbox expects
    // empty (a clone target); e2fsck makes it again if it ever needs one.
    await rmdir(join(target, 'lost+found')).catch(() => undefined);
    return mountedDisk(image, target);
  }

  /** Stops refilling and deletes the images not taken (taken ones are their holders' to release). */
  async close(): Promise<void> {
    this.closed = true;
    await this.whenFilled();
    const unused = this.ready.splice(0);
    await Promise.all(unused.map((image) => unlink(image).catch(() => undefined)));
  }

  private fill(): void {
    // A failure is not retried until the next take(): no loop of failures on a full host disk.
    while (!this.closed && this.ready.length + this.making.size < this.poolSize) {
      const making: Promise<void> = this.makeImage()
        .then(
          async (image) => {
            if (this.closed) await unlink(image).catch(() => undefined);
            else this.ready.push(image);
            this.lastError = null;
          },
          (error: unknown) => {
            this.lastError = error;
          },
        )
        .finally(() => this.making.delete(making));
      this.making.add(making);
    }
  }

  private async makeImage(): Promise<string> {
    await mkdir(this.imageDir, { recursive: true, mode: 0o700 });
    const image = join(this.imageDir, `${IMAGE_PREFIX}${this.instance}-${randomBytes(6).toString('hex')}.img`);
    await makeImageFile(image, this.sizeBytes, this.owner);
    return image;
  }
}

/** A sparse file of `bytes` made an ext4 file system whose root directory `owner` owns. */
async function makeImageFile(image: string, bytes: number, owner: DiskOwner): Promise<void> {
  // Sparse: only what is written takes space on the host. 0600: the host's other users never read a sandbox's files.
  const file = await open(image, 'wx', 0o600);
  try {
    await file.truncate(bytes);
  } finally {
    await file.close();
  }
  try {
    // No journal (a sandbox's disk is thrown away, never recovered after a crash), no blocks
    // reserved for root (the sandbox's user gets all of it), lazy init (mkfs writes almost nothing).
    await run(
      'mkfs.ext4',
      ['-q', '-F', '-E', `lazy_itable_init=1,lazy_journal_init=1,root_owner=${owner.uid}:${owner.gid}`, '-O', '^has_journal', '-m', '0', image],
      { env: cliEnv() },
    );
  } catch (error) {
    await unlink(image).catch(() => undefined);
    throw new Error(`mkfs.ext4 could not make ${image}: ${cliWords('mkfs.ext4', error)}`);
  }
}

async function mountImage(image: string, mountPoint: string): Promise<void> {
  // Two mounts at once may pick the same free loop device; the loser's set-up fails and is tried again.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await run('mount', ['-o', MOUNT_OPTIONS, image, mountPoint], { env: cliEnv() });
      return;
    } catch (error) {
      const words = cliWords('mount', error);
      if (attempt < 3 && /loop device/i.test(words)) continue;
      throw new Error(`mount could not mount ${image} at ${mountPoint}: ${words}`);
    }
  }
}

/** Unmounts `mountPoint`; lazily when something still holds it (it goes when that does). Not mounted is fine. */
async function unmount(mountPoint: string): Promise<void> {
  try {
    await run('umount', [mountPoint], { env: cliEnv() });
  } catch (error) {
    const words = cliWords('umount', error);
    if (/not mounted|no mount point/i.test(words)) return;
    if (!/busy/i.test(words)) throw new Error(`umount could not unmount ${mountPoint}: ${words}`);
    await run('umount', ['-l', mountPoint], { env: cliEnv() }).catch((lazy: unknown) => {
      throw new Error(`umount -l could not unmount ${mountPoint}: ${cliWords('umount', lazy)}`);
    });
  }
}

/**
 * A disk is full when what its user can still write is under 4 % of it or 4 MiB (the smaller): after
 * a write failed for want of space, ext4 still reports some space available (measured: 637 KiB, 2.8 %,
 * of a 24 MB disk after dd hit ENOSPC — room held back for delayed allocation's metadata), so the
 * margin sits above that residue while staying noise on a real disk. The same for inodes (many small files end
 * in ENOSPC too). A program that deletes its partial output after failing can free space again: read
 * this when the sandbox's command ends.
 */
function isFullUsage(usage: DiskUsage): boolean {
  const spaceMargin = Math.min(4 * MiB, (usage.totalBytes * 4) / 100);
  const inodeMargin = Math.min(64, usage.totalInodes / 100);
  return usage.availableBytes < spaceMargin || usage.availableInodes < inodeMargin;
}

function mountedDisk(image: string, mountPoint: string): SandboxDisk {
  let releasing: Promise<void> | null = null;
  let released = false;
  const usage = async (): Promise<DiskUsage> => {
    // After release statfs would read the file system underneath: refuse rather than answer wrongly.
    if (released || releasing) throw new Error(`the disk at ${mountPoint} was released`);
    const stats = await statfs(mountPoint);
    return {
      usedBytes: (stats.blocks - stats.bfree) * stats.bsize,
      totalBytes: stats.blocks * stats.bsize,
      availableBytes: stats.bavail * stats.bsize,
      totalInodes: stats.files,
      availableInodes: stats.ffree,
    };
  };
  return {
    mountPoint,
    image,
    usage,
    isFull: async () => isFullUsage(await usage()),
    release() {
      if (released) return Promise.resolve();
      releasing ??= (async () => {
        await unmount(mountPoint);
        await unlink(image).catch((error: unknown) => {
          if (errorCode(error) !== 'ENOENT') throw error;
        });
        released = true;
      })().finally(() => {
        releasing = null;
      });
      return releasing;
    },
  };
}

/**
 * At start-up: can this machine give sandboxes disks? A tiny image made, mounted, written and
 * released for real in `imageDir`; what failed, in words, when not.
 */
export async function probeDiskSupport(imageDir: string): Promise<DiskSupport> {
  const dir = resolve(imageDir);
  let instance: string;
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    instance = await newInstanceName();
  } catch (error) {
    return { available: false, why: `the image directory ${dir} cannot be made (${describeError(error)})` };
  }
  const mountPoint = join(dir, `${IMAGE_PREFIX}${instance}-probe`);
  const image = `${mountPoint}.img`;
  let disk: SandboxDisk | null = null;
  try {
    await mkdir(mountPoint);
    await makeImageFile(image, 8 * MiB, { uid: 0, gid: 0 });
    await mountImage(image, mountPoint).catch((error: unknown) => {
      throw new Error(`${describeError(error)} (loop mounts need root, /dev/loop-control and, in a container, CAP_SYS_ADMIN)`);
    });
    disk = mountedDisk(image, mountPoint);
    const written = await open(join(mountPoint, 'probe'), 'w');
    await written.write('probe');
    await written.close();
    return { available: true, how: `an ext4 image per sandbox (sparse, loop-mounted nosuid,nodev) in ${dir}` };
  } catch (error) {
    return { available: false, why: `a disk image cannot be made and mounted in ${dir}: ${describeError(error)}` };
  } finally {
    await disk?.release().catch(() => undefined);
    await unlink(image).catch(() => undefined);
    await rmdir(mountPoint).catch(() => undefined);
  }
}

interface LoopMount {
  mountPoint: string;
  backingFile: string;
}

/** Loop mounts as /proc/self/mountinfo lists them, with each one's image (from /sys/block/loopN/loop/backing_file). */
async function loopMounts(): Promise<LoopMount[]> {
  const mounts: LoopMount[] = [];
  for (const line of (await readFile('/proc/self/mountinfo', 'utf8')).split('\n')) {
    const fields = line.split(' ');
    const separator = fields.indexOf('-');
    const source = fields[separator + 2] ?? '';
    const device = /^\/dev\/(loop\d+)$/.exec(source)?.[1];
    if (separator < 6 || !device) continue;
    const backing = await readFile(`/sys/block/${device}/loop/backing_file`, 'utf8').catch(() => null);
    if (backing) mounts.push({ mountPoint: unescapeMountField(fields[4] ?? ''), backingFile: backing.trim().replace(/ \(deleted\)$/, '') });
  }
  return mounts;
}

function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/** The instance an image or probe entry of ours names, or null when the name is not ours. */
function entryInstance(name: string): string | null {
  return OUR_ENTRY.exec(name)?.[1] ?? null;
}

/**
 * At start-up (after sweepStaleCgroups killed what a dead instance left running): unmounts the loop
 * mounts under `mountRoot` (or `imageDir`) of our images whose instance is stale, then deletes such
 * images (and empty probe directories) in `imageDir`. Only names of ours, only of dead owners; never
 * a recursive delete (a directory still mounted would be emptied through its mount).
 */
export async function sweepStaleDisks(imageDir: string, mountRoot: string): Promise<DiskSweep> {
  const sweep: DiskSweep = { unmounted: [], deleted: [], failed: [] };
  // The kernel reports mount points and backing files by their real paths.
  const images = await realpath(imageDir).catch(() => resolve(imageDir));
  const roots = [await realpath(mountRoot).catch(() => resolve(mountRoot)), images];
  const stale = new Map<string, Promise<boolean>>();
  const isStale = (instance: string): Promise<boolean> => {
    if (!stale.has(instance)) stale.set(instance, instanceIsStale(instance));
    return stale.get(instance) as Promise<boolean>;
  };
  // Deepest first: a mount under another is unmounted before it.
  const mounts = (await loopMounts()).sort((a, b) => b.mountPoint.length - a.mountPoint.length);
  for (const mount of mounts) {
    const instance = entryInstance(basename(mount.backingFile));
    if (!instance || resolve(dirname(mount.backingFile)) !== images || !roots.some((root) => inside(root, mount.mountPoint))) continue;
    if (!(await isStale(instance))) continue;
    try {
      await unmount(mount.mountPoint);
      sweep.unmounted.push(mount.mountPoint);
    } catch (error) {
      sweep.failed.push(`${mount.mountPoint} (${describeError(error)})`);
    }
  }
  let entries: string[];
  try {
    entries = await readdir(images);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') sweep.failed.push(`${images} (${describeError(error)})`);
    return sweep;
  }
  for (const name of entries) {
    const instance = entryInstance(name);
    if (!instance || !(await isStale(instance))) continue;
    const path = join(images, name);
    try {
      await (name.endsWith('.img') ? unlink(path) : rmdir(path));
      sweep.deleted.push(path);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') sweep.failed.push(`${path} (${describeError(error)})`);
    }
  }
  return sweep;
}

/** A CLI's own words: its stderr (last lines), else the error's message; a missing program said so. */
function cliWords(program: string, error: unknown): string {
  if (errorCode(error) === 'ENOENT') return `${program} is not installed${program === 'mkfs.ext4' ? ' (Debian package e2fsprogs)' : ''}`;
  const stderr = typeof error === 'object' && error !== null && 'stderr' in error && typeof error.stderr === 'string' ? error.stderr.trim() : '';
  return stderr ? stderr.split('\n').slice(-3).join(' ') : describeError(error);
}
