// `npm run --silent admin -- …` from the repository root, exactly as an operator calls it: its exit
// code and what it printed (never thrown).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { repoRoot } from '@ars/stack';

const run = promisify(execFile);

export interface AdminResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function admin(args: readonly string[], env: Record<string, string> = {}): Promise<AdminResult> {
  try {
    const { stdout, stderr } = await run('npm', ['run', '--silent', 'admin', '--', ...args], { cwd: repoRoot, env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as AdminResult;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}
