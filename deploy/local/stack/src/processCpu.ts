// CPU time of processes from /proc (Linux): what each process of a benchmark spends per unit of
// work (a request, an event), a figure that does not move with other sessions' load on a shared
// machine the way rates do (a process waiting for a CPU accrues no CPU time). utime + stime of
// /proc/<pid>/stat, and cutime + cstime (its children once reaped: a sandbox's git and harness
// processes, in sessions of their own, count for the sandboxes service that started them), summed
// over the process group the pid leads: the stack starts each child in a group of its own, and
// Redis runs under a small shell, so the group holds the server itself.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds of each named process group, at one moment. */
export type CpuSnapshot = Map<string, number>;

/** Clock ticks per second of /proc's times (`getconf CLK_TCK`); undefined where there is no /proc. */
export function clockTicksPerSecond(): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isFinite(ticks) && ticks > 0 ? ticks : undefined;
  } catch {
    return undefined;
  }
}

/** `pgrp` and utime + stime + cutime + cstime (ticks) of one /proc/<pid>/stat line; the command name may hold spaces and parentheses. */
function parseStat(line: string): { group: number; ticks: number } | undefined {
  const fields = line.slice(line.lastIndexOf(')') + 2).split(' ');
  // After the name: state, ppid, pgrp (index 2) … utime (11), stime (12), cutime (13), cstime (14).
  const group = Number(fields[2]);
  const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  return Number.isFinite(group) && Number.isFinite(ticks) ? { group, ticks } : undefined;
}

/** Ticks used so far by every live process, by process group. */
function ticksByGroup(): Map<number, number> {
  const byGroup = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: ReturnType<typeof parseStat>;
    try {
      stat = parseStat(readFileSync(`/proc/${entry}/stat`, 'utf8'));
    } catch {
      continue; // gone since the listing
    }
    if (stat) byGroup.set(stat.group, (byGroup.get(stat.group) ?? 0) + stat.ticks);
  }
  return byGroup;
}

/** CPU seconds so far of one process (and of its children once reaped); undefined when it is gone. */
export function processCpuSeconds(pid: number, ticksPerSecond: number): number | undefined {
  try {
    const stat = parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return stat ? stat.ticks / ticksPerSecond : undefined;
  } catch {
    return undefined;
  }
}

/** CPU seconds so far of each named group leader's process group, and of this process (`client`). */
export function cpuSnapshot(pids: Record<string, number>, ticksPerSecond: number): CpuSnapshot {
  const byGroup = ticksByGroup();
  const snapshot: CpuSnapshot = new Map();
  const own = process.cpuUsage();
  snapshot.set('client', (own.user + own.system) / 1e6);
  for (const [name, pid] of Object.entries(pids)) snapshot.set(name, (byGroup.get(pid) ?? 0) / ticksPerSecond);
  return snapshot;
}

/** Milliseconds of CPU per unit of work (`units` of them: requests, events) of each process between two snapshots. */
export function cpuPerUnit(before: CpuSnapshot, after: CpuSnapshot, units: number): Map<string, number> {
  const perUnit = new Map<string, number>();
  for (const [name, seconds] of after) perUnit.set(name, ((seconds - (before.get(name) ?? seconds)) * 1000) / units);
  return perUnit;
}
