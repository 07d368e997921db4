// A working clone of a bare repository for whole-stack tests: git by argument vector (no shell), with
// a fixed identity, and files committed and pushed in one step.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const IDENTITY = ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.test'];

export interface WorkingClone {
  /** Runs git in the clone; its output trimmed. */
  git(...args: string[]): string;
  /** Writes the files (paths may be nested), commits them on the current branch and pushes it; the new commit. */
  commitAndPush(files: Record<string, string>, message: string): string;
}

/** Clones `cloneUrl` into `work` (created; it must not exist yet). */
export function workingClone(cloneUrl: string, work: string): WorkingClone {
  mkdirSync(dirname(work), { recursive: true });
  execFileSync('git', ['clone', '--quiet', cloneUrl, work], { stdio: 'pipe' });
  const git = (...args: string[]): string =>
    execFileSync('git', [...IDENTITY, ...args], { cwd: work, stdio: 'pipe' })
      .toString()
      .trim();
  return {
    git,
    commitAndPush(files, message) {
      for (const [path, content] of Object.entries(files)) {
        mkdirSync(dirname(join(work, path)), { recursive: true });
        writeFileSync(join(work, path), content);
      }
      git('add', '-A');
      git('commit', '--quiet', '-m', message);
      git('push', '--quiet', 'origin', 'HEAD');
      return git('rev-parse', 'HEAD');
    },
  };
}
