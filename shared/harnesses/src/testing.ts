// Test helpers for the harness adapters (`@ars/harnesses/testing`): a temporary git work tree, a
// scrubbed environment, whether a process is alive.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface WorkTree {
  dir: string;
  cleanup: () => Promise<void>;
}

export async function makeWorkTree(): Promise<WorkTree> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'ars-harness-')));
  const git = (...args: string[]): void => {
    execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  };
  git('init', '-q', '-b', 'main');
  await writeFile(join(dir, 'README.md'), '# fixture\n');
  git('add', 'README.md');
  git('-c', 'user.name=test', '-c', 'user.email=test@example.invalid', 'commit', '-q', '-m', 'init');
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A minimal, explicit environment: what a scrubbed sandbox environment would hold. */
export function scrubbedEnv(home: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' };
}

/**
 * Whether the process still runs. A zombie does not: it has exited and only waits for its parent to
 * reap it (a CLI whose stdout has closed, before the SDK that spawned it has seen its exit).
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // The state follows the command name, which is in parentheses and may itself hold spaces.
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)?.[0] !== 'Z';
  } catch {
    return false;
  }
}
