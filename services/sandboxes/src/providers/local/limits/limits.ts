// The local provider's one handle on a sandbox's resource limits: its cgroups (memory, processes,
// CPU) and its disk, made together, asked together which limit a failed command hit, and released
// together in the one safe order (kill → unmount → remove the groups). Prepared once at start-up,
// after sweeping what a dead instance of the service left; what this machine cannot enforce is said
// in the support summary, and the rest is still enforced (refusing production is the caller's call).
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  createSandboxCgroups,
  describeError,
  detectCgroups,
  isInstanceName,
  removeInstanceCgroups,
  sweepStaleCgroups,
  type CgroupController,
  type CgroupSupport,
  type SandboxCgroups,
} from './cgroups.js';
import { probeDiskSupport, SandboxDisks, sweepStaleDisks, type DiskOwner, type SandboxDisk } from './sandboxDisk.js';

/** Per sandbox; null: not limited. */
export interface SandboxLimitsSettings {
  memoryMb: number | null;
  /** Tasks: processes and threads (a node process alone has about ten). */
  pids: number | null;
  /** CPUs' worth of time, fractional allowed. */
  cpus: number | null;
  diskMb: number | null;
}

export interface SandboxLimitsOptions {
  /** This service process's instance: newInstanceName() of cgroups.ts. */
  instance: string;
  /** The sandboxes' root directory (the local provider's); stale disk mounts are looked for under it. */
  sandboxRoot: string;
  /** The sandbox user: owner of each disk's root directory. */
  owner: DiskOwner;
  /** Where disk images live (default `<sandboxRoot>/.ars-disks`, which no sandbox can see). */
  imageDir?: string;
  /** Disk images kept ready (default 2). */
  poolSize?: number;
}

export type LimitName = 'memory' | 'pids' | 'cpu' | 'disk';

export type LimitState = { state: 'enforced'; how: string } | { state: 'off' } | { state: 'unavailable'; why: string };

export interface LimitsSupport {
  limits: Record<LimitName, LimitState>;
  /** One start-up log line: what is enforced and how, what is not and why, what the sweeps removed. */
  line: string;
  /** The words of a production refusal (each configured limit that cannot be enforced, and why), or null when all are. */
  refusal: string | null;
}

/** What is in force on a sandbox (null: not limited), as a `limits` lifecycle event reports it. */
export interface EnforcedLimits {
  memory_mb: number | null;
  pids: number | null;
  cpus: number | null;
  disk_mb: number | null;
}

export type LimitHit = 'memory_limit' | 'process_limit' | 'disk_limit';

/** The one thing the provider holds per sandbox. */
export interface SandboxConfinement {
  /** The `cgroup.procs` files every launcher of the sandbox joins before it execs (enterCgroupsCommand); empty when no controller is used. */
  readonly procsFiles: readonly string[];
  readonly limits: EnforcedLimits;
  /**
   * Which limit was hit, for a command that failed: an OOM kill first (it killed something), then a
   * refused fork, then a full disk; null when none. Ask before release().
   */
  hit(): Promise<LimitHit | null>;
  /** Kills every process in the sandbox's groups, unmounts its disk and deletes the image, removes the groups. Safe twice. */
  release(): Promise<void>;
}

export interface SandboxLimits {
  support: LimitsSupport;
  /** Confines a new sandbox whose directory `dir` exists and is empty (its disk is mounted there). */
  forSandbox(sandboxId: string, dir: string): Promise<SandboxConfinement>;
  /** Releases every sandbox not yet released, deletes the unused images and removes this instance's groups. */
  close(): Promise<void>;
}

const MiB = 1024 * 1024;
const CONTROLLER_OF: Record<Exclude<LimitName, 'disk'>, CgroupController> = { memory: 'memory', pids: 'pids', cpu: 'cpu' };

/** Detects and sweeps (cgroups first: their kills free the mounts), then probes the disk; ready to confine sandboxes. */
export async function prepareSandboxLimits(settings: SandboxLimitsSettings, options: SandboxLimitsOptions): Promise<SandboxLimits> {
  validate(settings);
  const { instance } = options;
  if (!isInstanceName(instance))
    throw new RangeError(`the instance "${instance}" is not one of newInstanceName(): only such names let a later start sweep what this one leaves`);
  const sandboxRoot = resolve(options.sandboxRoot);
  const imageDir = resolve(options.imageDir ?? join(sandboxRoot, '.ars-disks'));
  const cgroups = await detectCgroups();
  const cgroupSweep = await sweepStaleCgroups(cgroups, { ownInstance: instance });
  const swept: string[] = [];
  if (cgroupSweep.removed.length > 0) swept.push(`${cgroupSweep.removed.length} stale cgroup(s)`);
  if (cgroupSweep.failed.length > 0) swept.push(`stale cgroups not removed: ${cgroupSweep.failed.join(', ')}`);

  const limits: Record<LimitName, LimitState> = {
    memory: cgroupState(cgroups, 'memory', settings.memoryMb),
    pids: cgroupState(cgroups, 'pids', settings.pids),
    cpu: cgroupState(cgroups, 'cpu', settings.cpus),
    disk: { state: 'off' },
  };
  let disks: SandboxDisks | null = null;
  if (settings.diskMb !== null) {
    await mkdir(sandboxRoot, { recursive: true });
    const diskSweep = await sweepStaleDisks(imageDir, sandboxRoot);
    if (diskSweep.unmounted.length + diskSweep.deleted.length > 0)
      swept.push(`${diskSweep.unmounted.length} stale disk mount(s), ${diskSweep.deleted.length} stale image(s)`);
    if (diskSweep.failed.length > 0) swept.push(`stale disks not removed: ${diskSweep.failed.join(', ')}`);
    const disk = await probeDiskSupport(imageDir);
    if (disk.available) {
      disks = new SandboxDisks({ imageDir, sizeMb: settings.diskMb, owner: options.owner, instance, poolSize: options.poolSize ?? 2 });
      limits.disk = { state: 'enforced', how: disk.how };
    } else limits.disk = { state: 'unavailable', why: disk.why };
  }

  const support = summarize(settings, limits, swept);
  const enforced = (name: LimitName): boolean => limits[name].state === 'enforced';
  const live = new Set<SandboxConfinement>();

  return {
    support,
    async forSandbox(sandboxId, dir) {
      const groups =
        enforced('memory') || enforced('pids') || enforced('cpu')
          ? await createSandboxCgroups(cgroups, {
              instance,
              sandboxId,
              memoryBytes: enforced('memory') && settings.memoryMb !== null ? Math.round(settings.memoryMb * MiB) : null,
              pids: enforced('pids') ? settings.pids : null,
              cpus: enforced('cpu') ? settings.cpus : null,
            })
          : null;
      let disk: SandboxDisk | null = null;
      try {
        if (disks) disk = await disks.take(dir);
      } catch (error) {
        await groups?.remove().catch(() => undefined);
        throw error;
      }
      const confinement = confine(groups, disk, settings.diskMb, () => live.delete(confinement));
      live.add(confinement);
      return confinement;
    },
    async close() {
      const problems: string[] = [];
      for (const confinement of [...live]) await confinement.release().catch((error: unknown) => problems.push(describeError(error)));
      await disks?.close();
      await removeInstanceCgroups(cgroups, instance).catch((error: unknown) => problems.push(describeError(error)));
      if (problems.length > 0) throw new Error(`the sandbox limits were not all released: ${problems.join('; ')}`);
    },
  };
}

/** A bad setting is refused once, here, naming it (not at every sandbox). */
function validate(settings: SandboxLimitsSettings): void {
  const integer = (name: keyof SandboxLimitsSettings, min: number): void => {
    const value = settings[name];
    if (value !== null && !(Number.isSafeInteger(value) && value >= min))
      throw new RangeError(`${name} must be an integer of at least ${min} (or null), not ${value}`);
  };
  integer('memoryMb', 1);
  integer('pids', 1);
  integer('diskMb', 2);
  if (settings.cpus !== null && !(Number.isFinite(settings.cpus) && settings.cpus >= 0.01))
    throw new RangeError(`cpus must be a number of at least 0.01 (or null), not ${settings.cpus}`);
}

function cgroupState(support: CgroupSupport, name: Exclude<LimitName, 'disk'>, setting: number | null): LimitState {
  if (setting === null) return { state: 'off' };
  const controller = CONTROLLER_OF[name];
  const home = support.available[controller];
  if (!home) return { state: 'unavailable', why: support.unavailable[controller] ?? `no ${controller} controller` };
  return { state: 'enforced', how: home.how };
}

function summarize(settings: SandboxLimitsSettings, limits: Record<LimitName, LimitState>, swept: string[]): LimitsSupport {
  const value: Record<LimitName, string> = {
    memory: `${settings.memoryMb} MB`,
    pids: `${settings.pids} tasks`,
    cpu: `${settings.cpus} CPU`,
    disk: `${settings.diskMb} MB`,
  };
  const names: LimitName[] = ['memory', 'pids', 'cpu', 'disk'];
  const parts = names.map((name) => {
    const limit = limits[name];
    if (limit.state === 'off') return `${name}: not limited (not configured)`;
    if (limit.state === 'unavailable') return `${name}: NOT ENFORCED (${limit.why})`;
    return `${name}: ${value[name]} (${limit.how})`;
  });
  const unavailable = names.flatMap((name) => {
    const limit = limits[name];
    return limit.state === 'unavailable' ? [`${name}: ${limit.why}`] : [];
  });
  return {
    limits,
    line: `sandbox limits: ${parts.join('; ')}${swept.length > 0 ? `; swept ${swept.join(', ')}` : ''}`,
    refusal: unavailable.length > 0 ? `sandbox limits cannot be enforced here: ${unavailable.join('; ')}` : null,
  };
}

function confine(groups: SandboxCgroups | null, disk: SandboxDisk | null, diskMb: number | null, forget: () => void): SandboxConfinement {
  let released = false;
  let releasing: Promise<void> | null = null;
  return {
    procsFiles: groups?.procsFiles ?? [],
    limits: { ...(groups?.limits ?? { memory_mb: null, pids: null, cpus: null }), disk_mb: disk ? diskMb : null },
    async hit() {
      const hits = groups ? await groups.limitHits() : { memory: false, pids: false };
      if (hits.memory) return 'memory_limit';
      if (hits.pids) return 'process_limit';
      if (disk && !released && (await disk.isFull())) return 'disk_limit';
      return null;
    },
    release() {
      if (released) return Promise.resolve();
      // Each step runs even when one before it failed: a process that cannot be killed still lets the
      // disk go lazily; the failures are reported together at the end, and a second call tries again.
      releasing ??= (async () => {
        const problems: string[] = [];
        const step = async (work: () => Promise<void>): Promise<void> => {
          await work().catch((error: unknown) => problems.push(describeError(error)));
        };
        if (groups) await step(() => groups.killAll());
        if (disk) await step(() => disk.release());
        if (groups) await step(() => groups.remove());
        if (problems.length > 0) throw new Error(`the sandbox's limits were not all released: ${problems.join('; ')}`);
        released = true;
        forget();
      })().finally(() => {
        releasing = null;
      });
      return releasing;
    },
  };
}
