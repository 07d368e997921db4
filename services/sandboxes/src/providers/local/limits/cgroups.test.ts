// Sandbox cgroups against the kernel's real ones (root, cgroup v1 memory/pids/cpu or v2 with them
// delegated). A machine without them fails here, naming what is missing: CI machines have them.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createSandboxCgroups,
  detectCgroups,
  enterCgroupsCommand,
  instanceIsStale,
  newInstanceName,
  removeInstanceCgroups,
  sweepStaleCgroups,
  type CgroupSupport,
  type SandboxCgroupRequest,
  type SandboxCgroups,
} from './cgroups.js';

const MiB = 1024 * 1024;

let support: CgroupSupport;
let instance: string;
/** Children started here, killed at the end whatever happened. */
const children = new Set<ChildProcess>();

beforeAll(async () => {
  support = await detectCgroups();
  const missing = Object.entries(support.unavailable).map(([controller, why]) => `${controller}: ${why}`);
  if (missing.length > 0) throw new Error(`these tests need the memory, pids and cpu cgroup controllers (run as root): ${missing.join('; ')}`);
  instance = await newInstanceName();
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  if (support && instance) await removeInstanceCgroups(support, instance);
});

function request(sandboxId: string, limits: Partial<SandboxCgroupRequest>): SandboxCgroupRequest {
  return { instance, sandboxId, memoryBytes: null, pids: null, cpus: null, ...limits };
}

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts `command` inside the groups through the launcher the provider uses. */
function startIn(groups: SandboxCgroups, command: string[]): { child: ChildProcess; ended: Promise<Ended> } {
  const [program, ...args] = enterCgroupsCommand(groups.procsFiles, command);
  const child = spawn(program as string, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const ended = new Promise<Ended>((resolve) =>
    child.on('close', (code, signal) => {
      children.delete(child);
      resolve({ code, signal, stdout, stderr });
    }),
  );
  return { child, ended };
}

/** Bounded: a test never waits for a process longer than this. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not end within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function pidsOf(groups: SandboxCgroups): Promise<number[]> {
  const lists = await Promise.all(groups.procsFiles.map((file) => readFile(file, 'utf8')));
  return [...new Set(lists.flatMap((text) => text.split('\n').filter(Boolean).map(Number)))];
}

async function waitFor(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Alive and not a zombie (a killed process its parent has not reaped yet counts as gone). */
async function running(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

describe('detection: each controller is found where the service itself is, never at a hierarchy root of its own choosing', () => {
  test('memory, pids and cpu are available, each nested under the cgroup /proc/self/cgroup names for it', async () => {
    const membership = await readFile('/proc/self/cgroup', 'utf8');
    for (const controller of ['memory', 'pids', 'cpu'] as const) {
      const home = support.available[controller];
      expect(home).toBeDefined();
      const line = membership
        .split('\n')
        .find((entry) => (home?.version === 2 ? entry.startsWith('0::') : entry.split(':')[1]?.split(',').includes(controller)));
      const path = line?.slice(line.indexOf(':', line.indexOf(':') + 1) + 1) ?? '';
      expect(line).toBeDefined();
      if (path !== '/') expect(home?.ownDir.endsWith(path)).toBe(true);
    }
    expect(support.summary).toMatch(/^memory: cgroup v[12] memory\.\S+.* under \/.*; pids: cgroup v[12] pids\.max under .*; cpu: cgroup v[12] cpu\./);
  });
});

describe('a sandbox group limits processes: forks past pids.max are refused and reported', () => {
  test('a shell forking 30 sleeps under pids.max=10 is refused, and limitHits().pids says so', async () => {
    const groups = await createSandboxCgroups(support, request('pids-limit', { pids: 10 }));
    try {
      expect(groups.limits).toEqual({ memory_mb: null, pids: 10, cpus: null });
      expect(await groups.limitHits()).toEqual({ memory: false, pids: false });
      const { ended } = startIn(groups, ['/bin/sh', '-c', 'for i in $(seq 30); do sleep 1 & done; wait']);
      const result = await within(ended, 15_000, 'the forking shell');
      expect(result.stderr).toMatch(/fork/i);
      expect(await groups.limitHits()).toEqual({ memory: false, pids: true });
    } finally {
      await groups.remove();
    }
  });
});

describe('a sandbox group limits memory and swap together: past it the kernel kills inside the group, not the service', () => {
  test('node allocating past 64 MB is OOM-killed, limitHits().memory says so, and this process lives on', async () => {
    const groups = await createSandboxCgroups(support, request('memory-limit', { memoryBytes: 64 * MiB }));
    try {
      const allocate = 'const kept = []; for (let i = 0; i < 512; i++) kept.push(Buffer.alloc(1 << 20, 1)); console.log("survived")';
      const { ended } = startIn(groups, [process.execPath, '-e', allocate]);
      const result = await within(ended, 30_000, 'the allocating node');
      expect(result.stdout).not.toContain('survived');
      expect(result.signal).toBe('SIGKILL');
      expect(await groups.limitHits()).toEqual({ memory: true, pids: false });
      expect(groups.limits.memory_mb).toBe(64);
      // The swap escape is closed too when the kernel accounts swap (v1 memsw, v2 swap.max).
      const [dir] = groups.dirs;
      const memsw = join(dir as string, 'memory.memsw.limit_in_bytes');
      if (existsSync(memsw)) expect(Number(await readFile(memsw, 'utf8'))).toBe(64 * MiB);
      const swapMax = join(dir as string, 'memory.swap.max');
      if (existsSync(swapMax)) expect((await readFile(swapMax, 'utf8')).trim()).toBe('0');
    } finally {
      await groups.remove();
    }
    expect(process.memoryUsage().rss).toBeGreaterThan(0);
  });
});

describe('a sandbox group limits CPU time to its share of each period', () => {
  test('a busy loop under cpus=0.2 gets well under a whole core (CPU time / wall time, measured by the loop itself)', async () => {
    const groups = await createSandboxCgroups(support, request('cpu-limit', { cpus: 0.2 }));
    try {
      expect(groups.limits.cpus).toBe(0.2);
      const busy =
        'const u0 = process.cpuUsage(), t0 = Date.now(); while (Date.now() - t0 < 1000); const u = process.cpuUsage(u0);' +
        'console.log(JSON.stringify({ cpuMs: (u.user + u.system) / 1000, wallMs: Date.now() - t0 }))';
      const { ended } = startIn(groups, [process.execPath, '-e', busy]);
      const result = await within(ended, 20_000, 'the busy loop');
      const { cpuMs, wallMs } = JSON.parse(result.stdout) as { cpuMs: number; wallMs: number };
      const share = cpuMs / wallMs;
      console.log(`cpus=0.2: the busy loop used ${cpuMs.toFixed(0)} ms of CPU in ${wallMs} ms (${(share * 100).toFixed(0)} % of a core)`);
      // 0.2 expected; the bound leaves room for a period's overrun, never for a whole core.
      expect(share).toBeGreaterThan(0);
      expect(share).toBeLessThan(0.45);
    } finally {
      await groups.remove();
    }
  });
});

describe('remove() kills what is inside and leaves nothing', () => {
  test('processes in the groups are killed, every group directory is gone, and a second remove() is fine', async () => {
    const groups = await createSandboxCgroups(support, request('remove', { memoryBytes: 64 * MiB, pids: 20, cpus: 0.5 }));
    expect(groups.dirs.length).toBeGreaterThan(0);
    expect(groups.limits).toEqual({ memory_mb: 64, pids: 20, cpus: 0.5 });
    const { ended } = startIn(groups, ['/bin/sh', '-c', 'sleep 30 & sleep 30 & wait']);
    await waitFor(async () => (await pidsOf(groups)).length >= 3, 5_000, 'three processes in the group');
    const inside = await pidsOf(groups);
    await groups.remove();
    for (const dir of groups.dirs) expect(existsSync(dir)).toBe(false);
    expect((await within(ended, 5_000, 'the killed shell')).signal).toBe('SIGKILL');
    await waitFor(async () => !(await Promise.all(inside.map(running))).some(Boolean), 5_000, 'every process inside gone');
    await groups.remove();
  });

  test('killAll() empties the groups and keeps them', async () => {
    const groups = await createSandboxCgroups(support, request('kill-all', { pids: 20 }));
    try {
      startIn(groups, ['/bin/sh', '-c', 'sleep 30 & wait']);
      await waitFor(async () => (await pidsOf(groups)).length >= 2, 5_000, 'two processes in the group');
      await groups.killAll();
      expect(await pidsOf(groups)).toEqual([]);
      for (const dir of groups.dirs) expect(existsSync(dir)).toBe(true);
    } finally {
      await groups.remove();
    }
  });

  test('a launcher that cannot join its groups exits 125 and never runs the command', async () => {
    const groups = await createSandboxCgroups(support, request('gone', { pids: 20 }));
    await groups.remove();
    const { ended } = startIn(groups, ['/bin/sh', '-c', 'echo ran']);
    const result = await within(ended, 5_000, 'the launcher');
    expect(result.code).toBe(125);
    expect(result.stdout).toBe('');
  });
});

describe('instance names record their owner: only a certainly dead owner makes its groups stale', () => {
  test('this process’s instance is live; the same pid with another start time, or another boot, is stale; what cannot be judged is not', async () => {
    expect(await instanceIsStale(instance)).toBe(false);
    const [pid, start, boot, pidNs, random] = instance.split('-');
    expect(await instanceIsStale([pid, Number(start) + 1, boot, pidNs, random].join('-'))).toBe(true);
    expect(await instanceIsStale([pid, start, boot === '00000000' ? '11111111' : '00000000', pidNs, random].join('-'))).toBe(true);
    expect(await instanceIsStale([pid, Number(start) + 1, boot, Number(pidNs) + 1, random].join('-'))).toBe(false);
    expect(await instanceIsStale('stack-1')).toBe(false);
  });
});

describe('the start-up sweep removes the groups of dead instances and never a live one’s', () => {
  test('a dead owner’s instance group goes (its process killed first); ours and its sandbox group stay', async () => {
    const owner = spawn('sleep', ['30']);
    children.add(owner);
    const dead = await newInstanceName(owner.pid as number);
    const deadGroups = await createSandboxCgroups(support, { instance: dead, sandboxId: 'left-behind', memoryBytes: 64 * MiB, pids: 20, cpus: 1 });
    const liveGroups = await createSandboxCgroups(support, request('live', { memoryBytes: 64 * MiB, pids: 20, cpus: 1 }));
    try {
      const leftover = startIn(deadGroups, ['sleep', '30']);
      await waitFor(async () => (await pidsOf(deadGroups)).length >= 1, 5_000, 'a process in the dead instance’s group');
      const ownerGone = new Promise((resolve) => owner.on('exit', resolve));
      owner.kill('SIGKILL');
      await ownerGone;
      expect(await instanceIsStale(dead)).toBe(true);

      const sweep = await sweepStaleCgroups(support, { ownInstance: instance });
      const deadDirs = [...new Set(Object.values(support.available).map((home) => join(home.ownDir, `ars-${dead}`)))];
      expect(sweep.removed).toEqual(expect.arrayContaining(deadDirs));
      for (const dir of deadDirs) expect(existsSync(dir)).toBe(false);
      expect((await within(leftover.ended, 5_000, 'the leftover process')).signal).toBe('SIGKILL');

      const liveDirs = [...new Set(Object.values(support.available).map((home) => join(home.ownDir, `ars-${instance}`)))];
      expect(sweep.kept).toEqual(expect.arrayContaining(liveDirs));
      for (const dir of liveGroups.dirs) expect(existsSync(dir)).toBe(true);
    } finally {
      await deadGroups.remove();
      await removeInstanceCgroups(support, dead);
      await liveGroups.remove();
    }
  });
});
