// Snapshots as `.tar.gz` archives of a sandbox's `repo/` and `home/`, made and read with the tar CLI.
// Dependency folders are left out: the install step makes them again after a restore.
import { execFile } from 'node:child_process';

/** Folders never archived (rebuilt by the install step; often most of a tree's size). */
export const SNAPSHOT_EXCLUDES = ['node_modules', '.venv', '__pycache__', '.pnpm-store', '.npm', '.cache'] as const;

function tar(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('tar', args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' }, maxBuffer: 1024 * 1024 }, (error, _stdout, stderr) => {
      if (!error) resolve();
      else reject(new Error(`${stderr}`.trim().split('\n').slice(-3).join(' ') || error.message));
    });
  });
}

/** Writes `<dir>/repo` and `<dir>/home` to `file`. */
export function archive(dir: string, file: string): Promise<void> {
  return tar(['-czf', file, ...SNAPSHOT_EXCLUDES.map((name) => `--exclude=${name}`), '-C', dir, 'repo', 'home']);
}

/** Unpacks an archive made by `archive()` into `dir` (paths are checked by tar: no absolute names, no `..`). */
export function extract(file: string, dir: string): Promise<void> {
  return tar(['-xzf', file, '--no-same-owner', '-C', dir]);
}
