// Sandbox disks against the real thing: mkfs.ext4, loop mounts, statfs (root). A machine that
// cannot loop-mount fails here, naming why: CI machines can.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { enterCgroupsCommand, newInstanceName } from './cgroups.js';
import { prepareSandboxLimits, type SandboxLimits, type SandboxLimitsSettings } from './limits.js';
import { probeDiskSupport, SandboxDisks, sweepStaleDisks, type SandboxDisk } from './sandboxDisk.js';

const MiB = 1024 * 1024;
const OWNER = { uid: 4321, gid: 4322 };

let work: string;
let imageDir: string;
let mountRoot: string;
let instance: string;
const pools: SandboxDisks[] = [];
const disks: SandboxDisk[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'ars-disk-test-'));
  imageDir = join(work, 'images');
  mountRoot = join(work, 'sandboxes');
  mkdirSync(mountRoot);
  const support = await probeDiskSupport(imageDir);
  if (!support.available) throw new Error(`these tests need loop-mounted ext4 images (run as root): ${support.why}`);
  instance = await newInstanceName();
});

afterAll(async () => {
  for (const disk of disks) await disk.release().catch(() => undefined);
  for (const pool of pools) await pool.close().catch(() => undefined);
  if (!work) return;
  // Whatever a failed test left mounted under the work directory goes before the directory does.
  for (const mountPoint of mountsUnder(work).reverse()) execFileSync('umount', ['-l', mountPoint]);
  if (mountsUnder(work).length === 0) rmSync(work, { recursive: true, force: true });
});

function mountsUnder(dir: string): string[] {
  return mountEntries()
    .map((entry) => entry.mountPoint)
    .filter((mountPoint) => mountPoint.startsWith(`${dir}/`));
}

function mountEntries(): { source: string; mountPoint: string; type: string; options: string[] }[] {
  return readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [source = '', mountPoint = '', type = '', options = ''] = line.split(' ');
      return { source, mountPoint, type, options: options.split(',') };
    });
}

function pool(sizeMb: number, poolSize: number, poolInstance = instance): SandboxDisks {
  const made = new SandboxDisks({ imageDir, sizeMb, owner: OWNER, instance: poolInstance, poolSize });
  pools.push(made);
  return made;
}

function sandboxDir(name: string): string {
  const dir = join(mountRoot, name);
  mkdirSync(dir);
  return dir;
}

async function take(from: SandboxDisks, name: string): Promise<SandboxDisk> {
  const disk = await from.take(sandboxDir(name));
  disks.push(disk);
  return disk;
}

function imagesOf(owner: string): string[] {
  return readdirSync(imageDir).filter((name) => name.startsWith(`ars-disk-${owner}-`) && name.endsWith('.img'));
}

/** Writes 1 MiB chunks until `limit` bytes or an error; what was written and the error's code. */
async function fill(path: string, limit: number): Promise<{ written: number; code: string | null }> {
  const file = await open(path, 'w');
  const chunk = Buffer.alloc(MiB, 7);
  let written = 0;
  try {
    while (written < limit) written += (await file.write(chunk)).bytesWritten;
    await file.sync();
    return { written, code: null };
  } catch (error) {
    return { written, code: (error as { code?: string }).code ?? String(error) };
  } finally {
    await file.close();
  }
}

describe('a sandbox disk bounds what the sandbox can write: a full disk refuses and says it is full', () => {
  test('on a 20 MB disk, writing 30 MB fails with ENOSPC and isFull() turns true', async () => {
    const disk = await take(pool(20, 1), 'full');
    expect(await disk.isFull()).toBe(false);
    const before = await disk.usage();
    expect(before.totalBytes).toBeGreaterThan(15 * MiB);
    expect(before.totalBytes).toBeLessThanOrEqual(20 * MiB);
    const result = await fill(join(disk.mountPoint, 'big'), 30 * MiB);
    expect(result.code).toBe('ENOSPC');
    expect(result.written).toBeLessThan(20 * MiB);
    expect(await disk.isFull()).toBe(true);
    expect((await disk.usage()).availableBytes).toBeLessThan(MiB);
  });
});

describe('a sandbox disk is mounted nosuid,nodev at the sandbox directory, its root the sandbox user’s', () => {
  test('the mount is ext4, nosuid and nodev; the root belongs to the given uid:gid and is empty', async () => {
    const disk = await take(pool(20, 1), 'options');
    const entry = mountEntries().find((mount) => mount.mountPoint === disk.mountPoint);
    expect(entry?.type).toBe('ext4');
    expect(entry?.source).toMatch(/^\/dev\/loop\d+$/);
    expect(entry?.options).toEqual(expect.arrayContaining(['nosuid', 'nodev']));
    const root = statSync(disk.mountPoint);
    expect({ uid: root.uid, gid: root.gid }).toEqual(OWNER);
    expect(await readdir(disk.mountPoint)).toEqual([]);
  });

  test('a directory that is not empty is refused (nothing is mounted over files)', async () => {
    const dir = sandboxDir('not-empty');
    await (await open(join(dir, 'file'), 'w')).close();
    await expect(pool(20, 0).take(dir)).rejects.toThrow(/is not empty/);
    expect(mountsUnder(dir)).toEqual([]);
  });
});

describe('release() unmounts, frees the loop device and deletes the image', () => {
  test('after release nothing is mounted there, no loop device holds the image, the image is gone; twice is fine', async () => {
    const disk = await take(pool(20, 0), 'release');
    await (await open(join(disk.mountPoint, 'kept-until-release'), 'w')).close();
    await disk.release();
    expect(mountsUnder(join(mountRoot, 'release'))).toEqual([]);
    expect(mountEntries().some((mount) => mount.mountPoint === disk.mountPoint)).toBe(false);
    expect(existsSync(disk.image)).toBe(false);
    expect(execFileSync('losetup', ['-j', disk.image], { encoding: 'utf8' }).trim()).toBe('');
    expect(await readdir(disk.mountPoint)).toEqual([]);
    await disk.release();
    await expect(disk.usage()).rejects.toThrow(/released/);
  });

  test('a disk still in use is unmounted lazily and its image deleted', async () => {
    const disk = await take(pool(20, 0), 'busy');
    const holder = await open(join(disk.mountPoint, 'held'), 'w');
    try {
      await disk.release();
      expect(mountEntries().some((mount) => mount.mountPoint === disk.mountPoint)).toBe(false);
      expect(existsSync(disk.image)).toBe(false);
    } finally {
      await holder.close();
    }
  });
});

describe('the pool keeps images ready, so a take only mounts', () => {
  test('two takes in a row both get images made before they were asked for; the pool refills; close() deletes what is left', async () => {
    const poolInstance = await newInstanceName();
    const warm = pool(64, 2, poolInstance);
    await warm.whenFilled();
    expect(warm.readyCount).toBe(2);
    const prepared = imagesOf(poolInstance);
    expect(prepared).toHaveLength(2);
    const first = await take(warm, 'pool-1');
    const second = await take(warm, 'pool-2');
    expect(prepared).toEqual(expect.arrayContaining([basename(first.image), basename(second.image)]));
    await warm.whenFilled();
    expect(warm.readyCount).toBe(2);
    await first.release();
    await second.release();
    await warm.close();
    expect(imagesOf(poolInstance)).toEqual([]);
  });

  test('the cost per sandbox: a take from a warm pool against one that makes its image (printed, not asserted)', async () => {
    const cold = pool(5 * 1024, 0);
    const warm = pool(5 * 1024, 1);
    await warm.whenFilled();
    const timed = async (from: SandboxDisks, name: string): Promise<number> => {
      const started = process.hrtime.bigint();
      const disk = await take(from, name);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      await disk.release();
      return ms;
    };
    const coldMs = await timed(cold, 'cold');
    const warmMs = await timed(warm, 'warm');
    console.log(
      `a 5 GB sandbox disk: take() ${coldMs.toFixed(1)} ms making its image (truncate + mkfs + mount), ${warmMs.toFixed(1)} ms from a warm pool (mount)`,
    );
    expect(warmMs).toBeGreaterThan(0);
  });
});

describe('the start-up sweep unmounts and deletes what a dead instance left, never a live one’s', () => {
  test('a dead owner’s mounted disk is unmounted and its images deleted; ours stays mounted', async () => {
    const owner = spawn('sleep', ['30']);
    try {
      const dead = await newInstanceName(owner.pid as number);
      const deadPool = pool(20, 1, dead);
      const deadDisk = await take(deadPool, 'dead');
      await deadPool.whenFilled();
      const live = await take(pool(20, 0), 'live');
      expect(imagesOf(dead)).toHaveLength(2);
      await new Promise((resolve) => {
        owner.on('exit', resolve);
        owner.kill('SIGKILL');
      });

      const sweep = await sweepStaleDisks(imageDir, mountRoot);
      expect(sweep.failed).toEqual([]);
      expect(sweep.unmounted).toEqual([deadDisk.mountPoint]);
      expect(imagesOf(dead)).toEqual([]);
      expect(mountEntries().some((mount) => mount.mountPoint === deadDisk.mountPoint)).toBe(false);
      expect(mountEntries().some((mount) => mount.mountPoint === live.mountPoint)).toBe(true);
      expect(existsSync(live.image)).toBe(true);
    } finally {
      owner.kill('SIGKILL');
    }
  });
});

describe('the start-up probe says why a machine cannot give sandboxes disks', () => {
  test('without mkfs.ext4 on PATH: unavailable, naming the missing program', async () => {
    const saved = process.env.PATH;
    const empty = join(work, 'empty-bin');
    mkdirSync(empty, { recursive: true });
    process.env.PATH = empty;
    try {
      const support = await probeDiskSupport(join(work, 'probe-images'));
      expect(support).toEqual({ available: false, why: expect.stringMatching(/mkfs\.ext4 is not installed/) });
    } finally {
      process.env.PATH = saved;
    }
    expect(readdirSync(join(work, 'probe-images'))).toEqual([]);
  });
});

// The façade (limits.ts) is tested here, where the disks' temporary directories and clean-up are.
describe('a sandbox’s confinement (limits.ts): groups and disk made together, asked together, released in order', () => {
  const settings: SandboxLimitsSettings = { memoryMb: 64, pids: 16, cpus: 0.5, diskMb: 20 };

  test('everything enforced here: one line says how; a confinement reports its limits, which one was hit, and release leaves nothing', async () => {
    const root = join(work, 'facade');
    const limits = await prepareSandboxLimits(settings, { instance: await newInstanceName(), sandboxRoot: root, owner: OWNER, poolSize: 1 });
    try {
      expect(limits.support.refusal).toBeNull();
      expect(limits.support.line).toMatch(
        /^sandbox limits: memory: 64 MB \(cgroup v[12] .*\); pids: 16 tasks .*; cpu: 0.5 CPU .*; disk: 20 MB \(an ext4 image/,
      );
      const dir = join(root, 'local-facade');
      mkdirSync(dir);
      const confinement = await limits.forSandbox('local-facade', dir);
      expect(confinement.limits).toEqual({ memory_mb: 64, pids: 16, cpus: 0.5, disk_mb: 20 });
      expect(confinement.procsFiles.length).toBeGreaterThan(0);
      expect(await confinement.hit()).toBeNull();

      expect((await fill(join(dir, 'big'), 30 * MiB)).code).toBe('ENOSPC');
      expect(await confinement.hit()).toBe('disk_limit');
      const [program, ...args] = enterCgroupsCommand(confinement.procsFiles, ['/bin/sh', '-c', 'for i in $(seq 40); do sleep 1 & done; wait']);
      await new Promise((resolve) => spawn(program as string, args, { stdio: 'ignore' }).on('exit', resolve));
      expect(await confinement.hit()).toBe('process_limit');

      const image = mountEntries().find((mount) => mount.mountPoint === dir);
      expect(image).toBeDefined();
      await confinement.release();
      expect(mountsUnder(root)).toEqual([]);
      for (const file of confinement.procsFiles) expect(existsSync(file)).toBe(false);
      expect(readdirSync(join(root, '.ars-disks')).filter((name) => name.endsWith('.img'))).toHaveLength(1); // the pool's next one
      await confinement.release();
    } finally {
      await limits.close();
    }
    expect(readdirSync(join(root, '.ars-disks'))).toEqual([]);
  });

  test('a limit this machine cannot enforce is named in the line and the refusal, and the others still are', async () => {
    const root = join(work, 'facade-no-disk');
    const saved = process.env.PATH;
    const empty = join(work, 'empty-bin');
    mkdirSync(empty, { recursive: true });
    process.env.PATH = empty;
    let limits: SandboxLimits;
    try {
      limits = await prepareSandboxLimits(settings, { instance: await newInstanceName(), sandboxRoot: root, owner: OWNER });
    } finally {
      process.env.PATH = saved;
    }
    try {
      expect(limits.support.limits.disk).toEqual({ state: 'unavailable', why: expect.stringMatching(/mkfs\.ext4 is not installed/) });
      expect(limits.support.line).toMatch(/disk: NOT ENFORCED \(.*mkfs\.ext4 is not installed/);
      expect(limits.support.refusal).toMatch(/^sandbox limits cannot be enforced here: disk: /);
      const dir = join(root, 'local-no-disk');
      mkdirSync(dir);
      const confinement = await limits.forSandbox('local-no-disk', dir);
      expect(confinement.limits).toEqual({ memory_mb: 64, pids: 16, cpus: 0.5, disk_mb: null });
      expect(mountsUnder(root)).toEqual([]);
      expect(await confinement.hit()).toBeNull();
    } finally {
      await limits.close();
    }
  });

  test('a limit set to null is off: not enforced, not a refusal', async () => {
    const limits = await prepareSandboxLimits(
      { memoryMb: null, pids: null, cpus: null, diskMb: null },
      { instance: await newInstanceName(), sandboxRoot: join(work, 'facade-off'), owner: OWNER },
    );
    try {
      expect(limits.support.refusal).toBeNull();
      expect(limits.support.line).toBe(
        'sandbox limits: memory: not limited (not configured); pids: not limited (not configured); cpu: not limited (not configured); disk: not limited (not configured)',
      );
      const confinement = await limits.forSandbox('local-off', work);
      expect(confinement).toMatchObject({ procsFiles: [], limits: { memory_mb: null, pids: null, cpus: null, disk_mb: null } });
      await confinement.release();
    } finally {
      await limits.close();
    }
  });
});
