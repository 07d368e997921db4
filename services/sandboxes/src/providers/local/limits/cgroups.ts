// Memory, process and CPU limits of a local sandbox, through the kernel's cgroups: a group per
// sandbox, `<own>/ars-<instance>/<sandboxId>` in each controller's hierarchy, where `<own>` is the
// service's own cgroup (never the hierarchy's root: a service confined by its host stays confined,
// and its sandboxes with it). A launcher writes its own pid into the groups' `cgroup.procs` before it
// execs the sandbox, so everything the sandbox starts is counted from its first instruction.
//
// cgroup v2 is used for a controller its unified hierarchy offers to our cgroup; otherwise the v1
// hierarchy the controller is mounted as. Instance names record their owner process, so a service
// starting up removes what a dead one left (its groups, killed first) and never touches a live one's.
import { randomBytes } from 'node:crypto';
import { access, mkdir, readFile, readdir, readlink, rmdir, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';

export const CGROUP_CONTROLLERS = ['memory', 'pids', 'cpu'] as const;
export type CgroupController = (typeof CGROUP_CONTROLLERS)[number];

/** Where a controller is usable. */
export interface CgroupHome {
  version: 1 | 2;
  /** The service's own cgroup in this controller's hierarchy (a directory); sandbox groups nest under it. */
  ownDir: string;
  /** How the limit is set, in words for the start-up line (memory: whether swap is bounded too). */
  how: string;
}

export interface CgroupSupport {
  /** The controllers sandboxes can be limited with, and where. */
  available: Partial<Record<CgroupController, CgroupHome>>;
  /** Why each other controller cannot be used (words for a start-up log line and a production refusal). */
  unavailable: Partial<Record<CgroupController, string>>;
  /** One line: each controller, how it is used or why not. */
  summary: string;
}

export interface SandboxCgroupRequest {
  /** This service process's instance (newInstanceName()): its groups are `ars-<instance>`. */
  instance: string;
  sandboxId: string;
  /** Memory and swap together (null: no memory limit). */
  memoryBytes: number | null;
  /** Tasks: processes and their threads (null: no limit). */
  pids: number | null;
  /** CPUs' worth of time per period, fractional allowed (null: no limit). */
  cpus: number | null;
}

/** What is in force on a sandbox (null: not limited), as a `limits` lifecycle event reports it. */
export interface CgroupLimits {
  memory_mb: number | null;
  pids: number | null;
  cpus: number | null;
}

export interface SandboxCgroups {
  /** The `cgroup.procs` files a launcher writes its own pid into before it execs (enterCgroupsCommand). */
  readonly procsFiles: readonly string[];
  /** The sandbox's group directories, one per hierarchy used. */
  readonly dirs: readonly string[];
  readonly limits: CgroupLimits;
  /** Whether a limit was hit since the groups were made: an OOM kill, a refused fork. */
  limitHits(): Promise<{ memory: boolean; pids: boolean }>;
  /** SIGKILL to every process in the groups until they are empty (bounded; throws naming what is left). */
  killAll(): Promise<void>;
  /** killAll, then the groups removed. Safe twice. */
  remove(): Promise<void>;
}

/** What sweepStaleCgroups did, instance group directories each. */
export interface CgroupSweep {
  removed: string[];
  /** Groups of live instances (or of owners this process cannot judge). */
  kept: string[];
  /** Stale groups that could not be removed, with why. */
  failed: string[];
}

const CFS_PERIOD_US = 100_000;
/** The kernel's smallest CFS quota (1 ms). */
const CFS_MIN_QUOTA_US = 1_000;
/** How long killAll keeps at it: a fork bomb refills a group between a read and the kills. */
const KILL_ROUNDS = 25;
const MiB = 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// Instance names: who owns a group (and a disk image, sandboxDisk.ts).
//
// `<pid>-<start>-<boot>-<pidns>-<random>`: the owner's pid and start time (/proc/<pid>/stat field 22,
// clock ticks since boot: a reused pid has another), the first 8 hex digits of the boot id (after a
// reboot every owner is gone; disk images outlive a boot), the owner's pid namespace (a pid means
// nothing in another: such names are never judged stale) and a random part (two instances in one
// process, a test's, stay apart).
// ---------------------------------------------------------------------------------------------

/** The pattern of an instance name (for other names that embed one). */
export const INSTANCE_NAME_SOURCE = '\\d+-\\d+-[0-9a-f]{8}-\\d+-[0-9a-f]{6}';
const INSTANCE_NAME = new RegExp(`^(\\d+)-(\\d+)-([0-9a-f]{8})-(\\d+)-[0-9a-f]{6}$`);

/** A new instance name owned by `ownerPid` (this process by default). */
export async function newInstanceName(ownerPid: number = process.pid): Promise<string> {
  const [start, boot, pidNs] = await Promise.all([startTime(ownerPid), bootId(), pidNamespace(ownerPid === process.pid ? 'self' : ownerPid)]);
  if (start === null) throw new Error(`process ${ownerPid} does not exist`);
  return `${ownerPid}-${start}-${boot}-${pidNs}-${randomBytes(3).toString('hex')}`;
}

/** Whether `name` is an instance name (one that records its owner, so that a later start can sweep after it). */
export function isInstanceName(name: string): boolean {
  return INSTANCE_NAME.test(name);
}

/**
 * Whether the instance's owner is certainly gone: another boot, or (in our pid namespace) its pid
 * gone or started at another time. A name that is not an instance name, or whose owner lives in
 * another pid namespace, is never stale: what cannot be judged is left alone.
 */
export async function instanceIsStale(instance: string): Promise<boolean> {
  const match = INSTANCE_NAME.exec(instance);
  if (!match) return false;
  const [, pid, start, boot, pidNs] = match;
  if (boot !== (await bootId())) return true;
  if (pidNs !== (await pidNamespace('self'))) return false;
  try {
    return (await startTime(Number(pid))) !== start;
  } catch {
    // /proc unreadable for another reason than the process being gone: cannot tell
    return false;
  }
}

/** The start time of a process (field 22 of /proc/<pid>/stat), or null when it does not exist. */
async function startTime(pid: number | 'self'): Promise<string | null> {
  let stat: string;
  try {
    stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ESRCH') return null;
    throw error;
  }
  // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = fields[19];
  if (!start || !/^\d+$/.test(start)) throw new Error(`unexpected /proc/${pid}/stat`);
  return start;
}

let bootIdCache: Promise<string> | undefined;
function bootId(): Promise<string> {
  bootIdCache ??= readFile('/proc/sys/kernel/random/boot_id', 'utf8').then((id) => id.replace(/-/g, '').trim().slice(0, 8));
  return bootIdCache;
}

async function pidNamespace(pid: number | 'self'): Promise<string> {
  const link = await readlink(`/proc/${pid}/ns/pid`);
  const inode = /\[(\d+)\]/.exec(link)?.[1];
  if (!inode) throw new Error(`unexpected /proc/${pid}/ns/pid: ${link}`);
  return inode;
}

// ---------------------------------------------------------------------------------------------
// Detection
// ---------------------------------------------------------------------------------------------

interface CgroupMount {
  version: 1 | 2;
  /** The cgroup the mount shows at its mount point (not `/` under a container's cgroup namespace or a bind). */
  root: string;
  mountPoint: string;
  /** v1: the controllers of the hierarchy (from the super options). */
  controllers: string[];
}

interface Membership {
  /** v1: the hierarchy's controllers; v2: empty. */
  controllers: string[];
  path: string;
}

/** The files a sandbox group needs per controller and version: their absence means the controller cannot limit. */
const NEEDED_FILES: Record<1 | 2, Record<CgroupController, string>> = {
  1: { memory: 'memory.limit_in_bytes', pids: 'pids.max', cpu: 'cpu.cfs_quota_us' },
  2: { memory: 'memory.max', pids: 'pids.max', cpu: 'cpu.max' },
};

/** Which hierarchy has each controller, where the service's own cgroup is in it, and whether groups can be made there. */
export async function detectCgroups(): Promise<CgroupSupport> {
  let mounts: CgroupMount[];
  let memberships: Membership[];
  try {
    [mounts, memberships] = await Promise.all([
      readFile('/proc/self/mountinfo', 'utf8').then(parseCgroupMounts),
      readFile('/proc/self/cgroup', 'utf8').then(parseMemberships),
    ]);
  } catch (error) {
    const why = `cgroups cannot be read (${describeError(error)})`;
    return finish({}, { memory: why, pids: why, cpu: why });
  }
  const available: Partial<Record<CgroupController, CgroupHome>> = {};
  const unavailable: Partial<Record<CgroupController, string>> = {};
  const unified = await unifiedHierarchy(mounts, memberships);
  for (const controller of CGROUP_CONTROLLERS) {
    if (unified && 'ownDir' in unified && unified.controllers.includes(controller)) {
      // The controller is ours to give in v2 (no v1 hierarchy can have it then).
      const problem = await enableInSubtree(unified.ownDir, controller);
      const probed = problem === null ? await probeGroup(unified.ownDir, 2, controller) : { problem };
      if ('problem' in probed) unavailable[controller] = `cgroup v2 ${controller}: ${probed.problem}`;
      else available[controller] = { version: 2, ownDir: unified.ownDir, how: probed.how };
      continue;
    }
    const v1 = v1Home(controller, mounts, memberships);
    if ('why' in v1) {
      const offered =
        unified && 'ownDir' in unified ? `cgroup v2 at ${unified.ownDir} offers ${unified.controllers.join(', ') || 'no controller'}` : unified?.why;
      unavailable[controller] = `no cgroup hierarchy has the ${controller} controller (${[offered, v1.why].filter(Boolean).join('; ')})`;
      continue;
    }
    const probed = await probeGroup(v1.ownDir, 1, controller);
    if ('problem' in probed) unavailable[controller] = `cgroup v1 ${controller}: ${probed.problem}`;
    else available[controller] = { version: 1, ownDir: v1.ownDir, how: probed.how };
  }
  return finish(available, unavailable);
}

function finish(available: Partial<Record<CgroupController, CgroupHome>>, unavailable: Partial<Record<CgroupController, string>>): CgroupSupport {
  const parts = CGROUP_CONTROLLERS.map((controller) => {
    const home = available[controller];
    return home ? `${controller}: ${home.how}` : `${controller}: unavailable (${unavailable[controller] ?? 'unknown'})`;
  });
  return { available, unavailable, summary: parts.join('; ') };
}

function parseCgroupMounts(mountinfo: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of mountinfo.split('\n')) {
    // id parent major:minor root mount-point options [optional fields] - fstype source super-options
    const fields = line.split(' ');
    const separator = fields.indexOf('-');
    if (separator < 6) continue;
    const fstype = fields[separator + 1];
    if (fstype !== 'cgroup' && fstype !== 'cgroup2') continue;
    const superOptions = (fields[separator + 3] ?? '').split(',');
    mounts.push({
      version: fstype === 'cgroup2' ? 2 : 1,
      root: unescapeMountField(fields[3] ?? '/'),
      mountPoint: unescapeMountField(fields[4] ?? ''),
      controllers: fstype === 'cgroup' ? superOptions : [],
    });
  }
  return mounts;
}

/** /proc/self/mountinfo writes space, tab, newline and backslash as octal escapes. */
export function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

function parseMemberships(text: string): Membership[] {
  const memberships: Membership[] = [];
  for (const line of text.split('\n')) {
    const first = line.indexOf(':');
    const second = line.indexOf(':', first + 1);
    if (first < 0 || second < 0) continue;
    const controllers = line.slice(first + 1, second);
    memberships.push({ controllers: controllers ? controllers.split(',') : [], path: line.slice(second + 1) });
  }
  return memberships;
}

/** The directory of cgroup `path` in a mount, or null when the mount does not show it. */
function dirInMount(mount: CgroupMount, path: string): string | null {
  const rel = relative(mount.root, path);
  if (rel.startsWith('..') || isAbsolute(rel)) return null;
  return join(mount.mountPoint, rel);
}

type UnifiedHierarchy = { ownDir: string; controllers: string[] } | { why: string } | null;

async function unifiedHierarchy(mounts: CgroupMount[], memberships: Membership[]): Promise<UnifiedHierarchy> {
  const membership = memberships.find((entry) => entry.controllers.length === 0);
  const mount = mounts.find((entry) => entry.version === 2);
  if (!membership || !mount) return null;
  const ownDir = dirInMount(mount, membership.path);
  if (!ownDir) return { why: `our cgroup v2 ${membership.path} is outside the mount at ${mount.mountPoint}` };
  try {
    const controllers = (await readFile(join(ownDir, 'cgroup.controllers'), 'utf8')).trim().split(/\s+/).filter(Boolean);
    return { ownDir, controllers };
  } catch (error) {
    return { why: `cgroup v2 at ${ownDir} cannot be read (${describeError(error)})` };
  }
}

/**
 * In v2 a group's children get a controller only when the group lists it in cgroup.subtree_control,
 * and a group that holds processes cannot (the no-internal-processes rule; the root excepted).
 */
async function enableInSubtree(dir: string, controller: CgroupController): Promise<string | null> {
  try {
    const enabled = (await readFile(join(dir, 'cgroup.subtree_control'), 'utf8')).trim().split(/\s+/);
    if (enabled.includes(controller)) return null;
    await writeFile(join(dir, 'cgroup.subtree_control'), `+${controller}`);
    return null;
  } catch (error) {
    if (errorCode(error) === 'EBUSY')
      return `it cannot be enabled for groups under ${dir}: that cgroup holds processes of its own (the v2 no-internal-processes rule); run the service in a delegated cgroup whose processes sit in a leaf (systemd Delegate=yes)`;
    return `it cannot be enabled in ${join(dir, 'cgroup.subtree_control')} (${describeError(error)})`;
  }
}

function v1Home(controller: CgroupController, mounts: CgroupMount[], memberships: Membership[]): { ownDir: string } | { why: string } {
  const membership = memberships.find((entry) => entry.controllers.includes(controller));
  const candidates = mounts.filter((mount) => mount.version === 1 && mount.controllers.includes(controller));
  if (!membership || candidates.length === 0) return { why: `no cgroup v1 ${controller} mount` };
  for (const mount of candidates) {
    const ownDir = dirInMount(mount, membership.path);
    if (ownDir) return { ownDir };
  }
  return { why: `our cgroup v1 ${controller} ${membership.path} is outside its mount at ${candidates[0]?.mountPoint}` };
}

/**
 * Makes and removes a child group: it must have the file the controller limits with. For memory, it
 * also tells whether swap can be bounded with it (the kernel's swap accounting) or need not be.
 */
async function probeGroup(ownDir: string, version: 1 | 2, controller: CgroupController): Promise<{ how: string } | { problem: string }> {
  const probe = join(ownDir, `ars-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
  const needed = NEEDED_FILES[version][controller];
  try {
    await mkdir(probe);
  } catch (error) {
    const code = errorCode(error);
    const hint =
      code === 'EROFS'
        ? ': the cgroup filesystem is read-only here (a container without a delegated cgroup)'
        : code === 'EACCES' || code === 'EPERM'
          ? ': not permitted (the service runs as root or owns a delegated cgroup)'
          : '';
    return { problem: `cannot create a group under ${ownDir} (${describeError(error)})${hint}` };
  }
  try {
    if (!(await exists(join(probe, needed)))) return { problem: `a group under ${ownDir} has no ${needed}` };
    const where = `under ${ownDir}`;
    if (controller === 'pids') return { how: `cgroup v${version} pids.max ${where}` };
    if (controller === 'cpu') return { how: version === 1 ? `cgroup v1 cpu.cfs_quota_us per 100 ms ${where}` : `cgroup v2 cpu.max ${where}` };
    if (await exists(join(probe, version === 1 ? 'memory.memsw.limit_in_bytes' : 'memory.swap.max')))
      return {
        how:
          version === 1
            ? `cgroup v1 memory.limit_in_bytes = memory.memsw.limit_in_bytes (swap included) ${where}`
            : `cgroup v2 memory.max, memory.swap.max 0 ${where}`,
      };
    const swap = (await machineHasSwap()) ? 'this machine has swap: a group can use it beyond its limit' : 'this machine has no swap';
    return { how: `cgroup v${version} ${version === 1 ? 'memory.limit_in_bytes, memory.swappiness 0' : 'memory.max'} (no swap accounting; ${swap}) ${where}` };
  } finally {
    await rmdir(probe).catch(() => undefined);
  }
}

async function machineHasSwap(): Promise<boolean> {
  const swaps = await readFile('/proc/swaps', 'utf8').catch(() => '');
  return swaps.trim().split('\n').length > 1;
}

// ---------------------------------------------------------------------------------------------
// A sandbox's groups
// ---------------------------------------------------------------------------------------------

interface GroupPlan {
  version: 1 | 2;
  ownDir: string;
  controllers: CgroupController[];
}

/** One group per hierarchy: v2 holds all its controllers in one directory, co-mounted v1 controllers share one. */
function groupPlans(support: CgroupSupport, wanted: CgroupController[]): GroupPlan[] {
  const plans = new Map<string, GroupPlan>();
  for (const controller of wanted) {
    const home = support.available[controller];
    if (!home) continue;
    const plan = plans.get(home.ownDir) ?? { version: home.version, ownDir: home.ownDir, controllers: [] };
    plan.controllers.push(controller);
    plans.set(home.ownDir, plan);
  }
  return [...plans.values()];
}

/** Makes `<own>/ars-<instance>/<sandboxId>` in each hierarchy and sets the limits the support allows. */
export async function createSandboxCgroups(support: CgroupSupport, request: SandboxCgroupRequest): Promise<SandboxCgroups> {
  assertName('instance', request.instance);
  assertName('sandbox id', request.sandboxId);
  const memoryBytes = request.memoryBytes === null ? null : positiveInteger('memoryBytes', request.memoryBytes);
  const pids = request.pids === null ? null : positiveInteger('pids', request.pids);
  if (request.cpus !== null && !(Number.isFinite(request.cpus) && request.cpus > 0))
    throw new RangeError(`cpus must be a positive number, not ${request.cpus}`);
  const quotaUs = request.cpus === null ? null : Math.max(CFS_MIN_QUOTA_US, Math.round(request.cpus * CFS_PERIOD_US));
  const wanted: CgroupController[] = [];
  if (memoryBytes !== null) wanted.push('memory');
  if (pids !== null) wanted.push('pids');
  if (quotaUs !== null) wanted.push('cpu');
  const plans = groupPlans(support, wanted);
  const made: Group[] = [];
  try {
    for (const plan of plans) {
      const instanceDir = join(plan.ownDir, `ars-${request.instance}`);
      await mkdir(instanceDir, { recursive: true });
      if (plan.version === 2) for (const controller of plan.controllers) await writeFile(join(instanceDir, 'cgroup.subtree_control'), `+${controller}`);
      const dir = join(instanceDir, request.sandboxId);
      await mkdir(dir);
      const group: Group = { version: plan.version, dir, controllers: plan.controllers };
      made.push(group);
      for (const controller of plan.controllers) {
        if (controller === 'memory' && memoryBytes !== null) await limitMemory(group, memoryBytes);
        if (controller === 'pids' && pids !== null) await writeFile(join(dir, 'pids.max'), String(pids));
        if (controller === 'cpu' && quotaUs !== null) await limitCpu(group, quotaUs);
      }
    }
  } catch (error) {
    await Promise.all(made.map((group) => removeGroup(group.dir).catch(() => undefined)));
    throw error;
  }
  const limited = (controller: CgroupController): boolean => made.some((group) => group.controllers.includes(controller));
  return sandboxCgroups(made, {
    memory_mb: limited('memory') && memoryBytes !== null ? memoryBytes / MiB : null,
    pids: limited('pids') ? pids : null,
    cpus: limited('cpu') && quotaUs !== null ? quotaUs / CFS_PERIOD_US : null,
  });
}

interface Group {
  version: 1 | 2;
  dir: string;
  controllers: CgroupController[];
}

async function limitMemory(group: Group, bytes: number): Promise<void> {
  const file = (name: string): string => join(group.dir, name);
  if (group.version === 2) {
    await writeFile(file('memory.max'), String(bytes));
    // Swap accounting off: no memory.swap.max, and nothing to escape into per group.
    if (await exists(file('memory.swap.max'))) await writeFile(file('memory.swap.max'), '0');
    return;
  }
  // A new v1 group inherits oom_kill_disable from its parent: with it set, a group at its limit would
  // hang instead of losing a process. 0 = the kernel OOM-kills inside the group.
  await writeFile(file('memory.oom_control'), '0');
  // memsw (memory + swap) must stay >= the memory limit, so the memory limit goes first.
  await writeFile(file('memory.limit_in_bytes'), String(bytes));
  if (await exists(file('memory.memsw.limit_in_bytes'))) await writeFile(file('memory.memsw.limit_in_bytes'), String(bytes));
  // Without swap accounting, the group's pages could go to swap past the limit: keep them in memory.
  else await writeFile(file('memory.swappiness'), '0').catch(() => undefined);
}

async function limitCpu(group: Group, quotaUs: number): Promise<void> {
  if (group.version === 2) {
    await writeFile(join(group.dir, 'cpu.max'), `${quotaUs} ${CFS_PERIOD_US}`);
    return;
  }
  await writeFile(join(group.dir, 'cpu.cfs_period_us'), String(CFS_PERIOD_US));
  await writeFile(join(group.dir, 'cpu.cfs_quota_us'), String(quotaUs));
}

function sandboxCgroups(groups: Group[], limits: CgroupLimits): SandboxCgroups {
  const dirs = groups.map((group) => group.dir);
  let removed = false;
  return {
    procsFiles: dirs.map((dir) => join(dir, 'cgroup.procs')),
    dirs,
    limits,
    async limitHits() {
      let memory = false;
      let pids = false;
      for (const group of groups) {
        if (group.controllers.includes('memory'))
          memory ||= (await counter(join(group.dir, group.version === 1 ? 'memory.oom_control' : 'memory.events'), 'oom_kill')) > 0;
        if (group.controllers.includes('pids')) pids ||= (await counter(join(group.dir, 'pids.events'), 'max')) > 0;
      }
      return { memory, pids };
    },
    async killAll() {
      const left = await killInGroups(dirs);
      if (left.length > 0) throw new Error(`processes ${left.join(', ')} are still in ${dirs.join(', ')} after SIGKILL`);
    },
    async remove() {
      if (removed) return;
      await Promise.all(dirs.map((dir) => removeGroup(dir)));
      removed = true;
    },
  };
}

/** A `name value` line of a cgroup events file; 0 when the file is gone (the group was removed). */
async function counter(file: string, name: string): Promise<number> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return 0;
    throw error;
  }
  const line = text.split('\n').find((entry) => entry.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) || 0 : 0;
}

async function pidsIn(dir: string): Promise<number[]> {
  try {
    return (await readFile(join(dir, 'cgroup.procs'), 'utf8')).split('\n').filter(Boolean).map(Number);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return [];
    throw error;
  }
}

/**
 * SIGKILL to everything in the groups, again until they are empty: a process may fork between the
 * read and its kill (the pids limit bounds how often). v2's cgroup.kill does it in one write when the
 * kernel has it. Returns the pids still there after the last round.
 */
async function killInGroups(dirs: readonly string[]): Promise<number[]> {
  const killFiles = (await Promise.all(dirs.map(async (dir) => ((await exists(join(dir, 'cgroup.kill'))) ? [join(dir, 'cgroup.kill')] : [])))).flat();
  let left: number[] = [];
  for (let round = 0; round < KILL_ROUNDS; round += 1) {
    left = (await Promise.all(dirs.map(pidsIn))).flat();
    if (left.length === 0) return [];
    for (const file of killFiles) await writeFile(file, '1').catch(() => undefined);
    for (const pid of new Set(left)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await sleep(Math.min(5 * 2 ** round, 100));
  }
  return (await Promise.all(dirs.map(pidsIn))).flat();
}

/** Kills what is in `dir` and its child groups, then removes them, deepest first; a missing group is fine. */
async function removeGroup(dir: string): Promise<void> {
  let entries: string[];
  try {
    entries = (await readdir(dir, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return;
    throw error;
  }
  for (const child of entries) await removeGroup(join(dir, child));
  const left = await killInGroups([dir]);
  try {
    await rmdir(dir);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return;
    const still = left.length > 0 ? left : await pidsIn(dir);
    throw new Error(
      `the cgroup ${dir} cannot be removed (${describeError(error)})${still.length > 0 ? `: processes ${still.join(', ')} are still in it` : ''}`,
    );
  }
}

/**
 * The argv of a launcher that joins the groups, then execs `command` in the same process (so the
 * command and everything it starts are counted): `/bin/sh -c '…; exec "$@"' sh <procs…> -- <command…>`.
 * A group it cannot join ends it with 125 before the command runs: a sandbox never runs unconfined.
 */
export function enterCgroupsCommand(procsFiles: readonly string[], command: readonly string[]): string[] {
  const script = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';
  return ['/bin/sh', '-c', script, 'sh', ...procsFiles, '--', ...command];
}

/** Kills and removes every group of `instance` (the service's shutdown, after its sandboxes were released). */
export async function removeInstanceCgroups(support: CgroupSupport, instance: string): Promise<void> {
  assertName('instance', instance);
  await Promise.all(ownDirs(support).map((ownDir) => removeGroup(join(ownDir, `ars-${instance}`))));
}

/**
 * At start-up: removes the `ars-*` groups (and their sandbox groups, killed first) of instances whose
 * owner is gone (instanceIsStale). Groups of live instances, ours, and names that are not instance
 * names are left alone.
 */
export async function sweepStaleCgroups(support: CgroupSupport, options: { ownInstance: string }): Promise<CgroupSweep> {
  const sweep: CgroupSweep = { removed: [], kept: [], failed: [] };
  for (const ownDir of ownDirs(support)) {
    let names: string[];
    try {
      names = (await readdir(ownDir, { withFileTypes: true }))
        .filter((entry) => entry.isDirectory() && entry.name.startsWith('ars-'))
        .map((entry) => entry.name);
    } catch (error) {
      sweep.failed.push(`${ownDir} (${describeError(error)})`);
      continue;
    }
    for (const name of names) {
      // A probe that outlived a crash of detectCgroups is named by its pid only.
      const probe = /^ars-probe-(\d+)-[0-9a-f]+$/.exec(name);
      const dir = join(ownDir, name);
      const instance = name.slice('ars-'.length);
      const stale = probe ? (await startTime(Number(probe[1]))) === null : instance !== options.ownInstance && (await instanceIsStale(instance));
      if (!stale) {
        sweep.kept.push(dir);
        continue;
      }
      try {
        await removeGroup(dir);
        sweep.removed.push(dir);
      } catch (error) {
        sweep.failed.push(`${dir} (${describeError(error)})`);
      }
    }
  }
  return sweep;
}

function ownDirs(support: CgroupSupport): string[] {
  return [...new Set(Object.values(support.available).map((home) => home.ownDir))];
}

// ---------------------------------------------------------------------------------------------

/** A name used as one path component: no separators, no `.`/`..`, nothing a shell or the kernel would read otherwise. */
function assertName(what: string, name: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,200}$/.test(name)) throw new RangeError(`the ${what} "${name}" cannot name a cgroup`);
}

function positiveInteger(what: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${what} must be a positive integer, not ${value}`);
  return value;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Duck-typed, not `instanceof Error`: errors of node's own modules come from another realm under jest.
export function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

export function describeError(error: unknown): string {
  const code = errorCode(error);
  const message = typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string' ? error.message : String(error);
  return code && !message.startsWith(code) ? `${code}: ${message}` : message;
}
