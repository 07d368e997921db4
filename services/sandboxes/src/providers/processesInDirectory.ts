// Processes an agent left behind in its sandbox: a backgrounded `sleep`, a dev server, a shell command
// whose harness was killed with the service (the harness CLIs give their commands process groups of
// their own, so killing the service's group does not reach them). Found by their working directory.
import { readdir, readlink } from 'node:fs/promises';
import { relative, isAbsolute } from 'node:path';

/** Pids of the processes whose working directory is `dir` or inside it (Linux /proc; none elsewhere). */
export async function processesWorkingIn(dir: string): Promise<number[]> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  await Promise.all(
    entries
      .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
      .map(async (entry) => {
        try {
          const cwd = await readlink(`/proc/${entry}/cwd`);
          const rel = relative(dir, cwd.replace(/ \(deleted\)$/, ''));
          if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) found.push(Number(entry));
        } catch {
          // gone, or not ours to read
        }
      }),
  );
  return found;
}

/** SIGKILL to every process working in `dir`; returns how many were signalled. */
export async function killProcessesWorkingIn(dir: string): Promise<number> {
  const pids = await processesWorkingIn(dir);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return pids.length;
}
