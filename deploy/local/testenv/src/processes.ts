import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * The host's pid of a process a sandbox reported by its own pid (`$PPID`, `$!`): inside the sandbox's
 * PID namespace (SANDBOX_ISOLATION=bwrap) they differ. `cwd` (the reporting shell's `$PWD`, the
 * process's working directory) tells sandboxes apart. Outside a namespace, the pid itself. Resolve
 * it while the process lives.
 */
export function hostPid(pid: number, cwd: string): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const levels =
        /^NSpid:\s*(.+)$/m
          .exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1]
          ?.trim()
          .split(/\s+/)
          .map(Number) ?? [];
      if (levels.length > 1 && levels[levels.length - 1] === pid && readlinkSync(`/proc/${entry}/cwd`) === cwd) return Number(entry);
    } catch {
      // gone, or not ours to read
    }
  }
  return pid;
}
