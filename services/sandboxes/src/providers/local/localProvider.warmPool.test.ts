// The local provider's warm pool (SANDBOX_WARM_POOL) against the real thing: sandboxes prepared
// ahead with a disk of their own (mkfs.ext4, a loop mount: root), taken by one allocation each, and
// nothing left mounted or on disk once the provider closes.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitToBare, noModelGateway } from '../../testing/sandboxesKit.js';
import type { AllocateRequest } from '../provider.js';
import { newInstanceName } from './limits/cgroups.js';
import { prepareSandboxLimits } from './limits/limits.js';
import { LocalProvider } from './localProvider.js';

let work: string;
let bare: string;

beforeAll(() => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'ars-warm-pool-')));
  bare = join(work, 'origin.git');
  execFileSync('git', ['init', '--quiet', '--bare', '-b', 'main', bare]);
  commitToBare(bare, 'main', { 'README.md': '# fixture\n' });
});

afterAll(() => {
  if (!work) return;
  // Whatever a failed test left mounted goes before the directory does.
  for (const mountPoint of mountsUnder(work).reverse()) execFileSync('umount', ['-l', mountPoint]);
  if (mountsUnder(work).length === 0) rmSync(work, { recursive: true, force: true });
});

function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '')
    .filter((mountPoint) => mountPoint.startsWith(`${dir}/`));
}

/** A provider whose sandboxes each get a 16 MB disk, with a warm pool of `warmPool`. */
async function providerWithDisks(root: string, warmPool: number): Promise<LocalProvider> {
  const limits = await prepareSandboxLimits(
    { memoryMb: null, pids: null, cpus: null, diskMb: 16 },
    { instance: await newInstanceName(), sandboxRoot: root, owner: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 } },
  );
  if (limits.support.limits.disk.state !== 'enforced') throw new Error(`these tests need loop-mounted ext4 images (run as root): ${limits.support.line}`);
  return new LocalProvider(root, { isolation: null, modelGateway: noModelGateway(), limits, warmPool });
}

function request(runId: string): AllocateRequest {
  return { sandboxRecordId: `record-${runId}`, runId, cloneUrl: bare, baseBranch: 'main', workingBranch: `ars/${runId}`, rootDirectory: null };
}

describe('a warm sandbox is prepared with its limits in force and nothing in it, and taken by one allocation only', () => {
  test('the next allocation gets the prepared directory, its disk already mounted, holding only its checkout', async () => {
    const root = join(work, 'taken');
    const provider = await providerWithDisks(root, 1);
    try {
      const first = await provider.allocate(request('run-1'));
      await provider.whenWarmPoolFilled();
      const prepared = readdirSync(root).filter((name) => name.startsWith('local-') && name !== first.sandboxId);
      expect(prepared).toHaveLength(1);
      const warm = join(root, prepared[0] ?? '');
      // Prepared: its own disk mounted, its temporary folder, nothing else (no run has been in it).
      expect(mountsUnder(root)).toContain(warm);
      expect(readdirSync(warm)).toEqual(['tmp']);

      const second = await provider.allocate(request('run-2'));
      expect(second.dir).toBe(warm);
      expect(readdirSync(warm).sort()).toEqual(['home', 'repo', 'tmp']);
      expect(readFileSync(join(second.repoDir, 'README.md'), 'utf8')).toBe('# fixture\n');
      expect(execFileSync('git', ['branch', '--show-current'], { cwd: second.repoDir, encoding: 'utf8' }).trim()).toBe('ars/run-2');
      expect(provider.limitsOf({ sandboxId: second.sandboxId, dir: second.dir })).toMatchObject({ disk_mb: 16 });
      // Taken: a third allocation does not get it again.
      const third = await provider.allocate(request('run-3'));
      expect(new Set([first.dir, second.dir, third.dir]).size).toBe(3);
    } finally {
      await provider.close();
    }
  }, 60_000);
});

describe('the provider closing releases every warm sandbox never taken: no directory, mount or disk image is left', () => {
  test('after allocations, releases and refills, close leaves the root without sandboxes and nothing mounted under it', async () => {
    const root = join(work, 'closed');
    const provider = await providerWithDisks(root, 2);
    const sandbox = await provider.allocate(request('run-1'));
    await provider.whenWarmPoolFilled();
    await provider.release(sandbox);
    await provider.whenWarmPoolFilled();
    expect(existsSync(sandbox.dir ?? '')).toBe(false);
    expect(readdirSync(root).filter((name) => name.startsWith('local-'))).toHaveLength(2);
    await provider.close();
    expect(readdirSync(root).filter((name) => name.startsWith('local-'))).toEqual([]);
    expect(mountsUnder(root)).toEqual([]);
    expect(readdirSync(join(root, '.ars-disks')).filter((name) => name.endsWith('.img'))).toEqual([]);
  }, 60_000);
});

describe('without a warm pool (SANDBOX_WARM_POOL=0) every allocation prepares its own sandbox, and nothing is made ahead', () => {
  test('after an allocation the root holds that sandbox alone', async () => {
    const root = join(work, 'none');
    const provider = await providerWithDisks(root, 0);
    try {
      const sandbox = await provider.allocate(request('run-1'));
      await provider.whenWarmPoolFilled();
      expect(readdirSync(root).filter((name) => name.startsWith('local-'))).toEqual([sandbox.sandboxId]);
    } finally {
      await provider.close();
    }
  }, 60_000);
});
