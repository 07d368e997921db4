import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killProcessesWorkingIn, processesWorkingIn } from './processesInDirectory.js';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('processes left working in a sandbox directory are found and ended', () => {
  test('a detached process working in a subfolder is found and killed; one elsewhere is not touched', async () => {
    const sandbox = mkdtempSync(join(tmpdir(), 'ars-procs-'));
    const elsewhere = mkdtempSync(join(tmpdir(), 'ars-procs-other-'));
    mkdirSync(join(sandbox, 'repo/sub'), { recursive: true });
    const inside = spawn('sleep', ['60'], { cwd: join(sandbox, 'repo/sub'), detached: true, stdio: 'ignore' });
    const outside = spawn('sleep', ['60'], { cwd: elsewhere, detached: true, stdio: 'ignore' });
    try {
      const insideExit = new Promise((resolve) => inside.once('exit', resolve));
      expect(await processesWorkingIn(sandbox)).toEqual([inside.pid]);
      expect(await killProcessesWorkingIn(sandbox)).toBe(1);
      await insideExit;
      expect(alive(outside.pid ?? 0)).toBe(true);
      expect(await processesWorkingIn(sandbox)).toEqual([]);
    } finally {
      outside.kill('SIGKILL');
      inside.kill('SIGKILL');
      rmSync(sandbox, { recursive: true, force: true });
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  test('a directory nobody works in: nothing is signalled', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'ars-procs-empty-'));
    try {
      expect(await killProcessesWorkingIn(empty)).toBe(0);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
