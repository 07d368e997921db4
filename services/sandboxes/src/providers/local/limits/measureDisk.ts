// What a sandbox's limits cost to set up and tear down on this machine (root, real mkfs, mounts and
// cgroups), printed as p50 / max of ROUNDS each; the figures go in README.md. After a build:
//   node services/sandboxes/dist/providers/local/limits/measureDisk.js [sizeMb=5120] [rounds=20]
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandboxCgroups, detectCgroups, newInstanceName, removeInstanceCgroups, type SandboxCgroups } from './cgroups.js';
import { prepareSandboxLimits } from './limits.js';
import { SandboxDisks, type SandboxDisk } from './sandboxDisk.js';

const SIZE_MB = Number(process.argv[2] ?? 5120);
const ROUNDS = Number(process.argv[3] ?? 20);
const OWNER = { uid: 1000, gid: 1000 };

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function report(what: string, samples: number[]): void {
  const sorted = [...samples].sort((a, b) => a - b);
  const p50 = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const max = sorted[sorted.length - 1] ?? 0;
  console.log(`${what.padEnd(58)} p50 ${p50.toFixed(1).padStart(6)} ms   max ${max.toFixed(1).padStart(6)} ms`);
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'ars-measure-'));
  const instance = await newInstanceName();
  const cold = new SandboxDisks({ imageDir: join(work, 'images'), sizeMb: SIZE_MB, owner: OWNER, instance, poolSize: 0 });
  const warm = new SandboxDisks({ imageDir: join(work, 'images'), sizeMb: SIZE_MB, owner: OWNER, instance, poolSize: 1 });
  const samples = {
    cold: [] as number[],
    warm: [] as number[],
    release: [] as number[],
    groups: [] as number[],
    removeGroups: [] as number[],
    facade: [] as number[],
  };
  const support = await detectCgroups();
  const limits = await prepareSandboxLimits(
    { memoryMb: 2048, pids: 512, cpus: 2, diskMb: SIZE_MB },
    { instance, sandboxRoot: join(work, 'root'), owner: OWNER, poolSize: 1 },
  );
  try {
    console.log(`${ROUNDS} rounds, ${SIZE_MB} MB disks; ${limits.support.line}`);
    for (let round = 0; round < ROUNDS; round += 1) {
      const dir = join(work, `mount-${round}`);
      mkdirSync(dir);
      let disk!: SandboxDisk;
      samples.cold.push(await timed(async () => (disk = await cold.take(dir))));
      samples.release.push(await timed(() => disk.release()));
      await warm.whenFilled();
      samples.warm.push(await timed(async () => (disk = await warm.take(dir))));
      await disk.release();

      let groups!: SandboxCgroups;
      const request = { instance, sandboxId: `m-${round}`, memoryBytes: 2 * 1024 ** 3, pids: 512, cpus: 2 };
      samples.groups.push(await timed(async () => (groups = await createSandboxCgroups(support, request))));
      samples.removeGroups.push(await timed(() => groups.remove()));

      const sandboxDir = join(work, 'root', `local-${round}`);
      mkdirSync(sandboxDir);
      await new Promise((resolve) => setTimeout(resolve, 50)); // the pool refills, as between runs
      samples.facade.push(await timed(async () => (await limits.forSandbox(`local-${round}`, sandboxDir)).release()));
    }
    report('take() making its image (truncate + mkfs.ext4 + mount)', samples.cold);
    report('take() from a warm pool (mount)', samples.warm);
    report('release() (umount + delete the image)', samples.release);
    report(`createSandboxCgroups (${Object.keys(support.available).join(', ')})`, samples.groups);
    report('SandboxCgroups.remove() (empty groups)', samples.removeGroups);
    report('forSandbox + release (warm pool, all limits)', samples.facade);
  } finally {
    await limits.close();
    await cold.close();
    await warm.close();
    await removeInstanceCgroups(support, instance);
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
