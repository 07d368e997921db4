// Snapshot retention against the suite's MongoDB and real archive files: expired snapshots and those
// beyond a user's maximum are deleted once, also with two instances sweeping at the same time.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { newSandboxRecordId } from '../store/sandboxRecords.js';
import { newSnapshotId } from '../store/snapshots.js';
import type { SnapshotDoc } from '../store/collections.js';
import { startSandboxesKit, type SandboxesKit } from '../testing/sandboxesKit.js';
import type { LifecycleDeps } from './deps.js';
import { deleteExpiredSnapshots, trimUserSnapshots } from './snapshotRetention.js';

jest.setTimeout(120_000);

let kit: SandboxesKit;
let deps: LifecycleDeps;
beforeAll(async () => {
  kit = await startSandboxesKit();
  const service = await kit.startService({ SNAPSHOT_RETENTION_MS: '3600000', SNAPSHOT_MAX_PER_USER: '2' });
  deps = service.lifecycle;
});
afterAll(async () => {
  await kit?.stop();
});

/** A stopped sandbox of a new user with snapshots taken `ageMs` ago (oldest first), archives on disk. */
async function snapshotsOf(ages: number[]): Promise<{ userId: string; sandboxRecordId: string; snapshots: SnapshotDoc[] }> {
  const repo = await kit.newRepo();
  const sandboxRecordId = newSandboxRecordId();
  await deps.sandboxRecords.create(sandboxRecordId, {
    userId: repo.userId,
    repoId: repo.repoId,
    baseBranch: 'main',
    workingBranch: 'main',
    rootDirectory: null,
    runId: null,
    provider: 'local',
  });
  await deps.sandboxRecords.transition(sandboxRecordId, { status: 'stopped' }, { eventType: 'stopped', decisionCode: 'service_shutdown' });
  await mkdir(deps.settings.snapshotRoot, { recursive: true });
  const snapshots: SnapshotDoc[] = [];
  for (const age of ages) {
    const id = newSnapshotId();
    const file = join(deps.settings.snapshotRoot, `${id}.tar.gz`);
    await writeFile(file, 'archive');
    const doc: SnapshotDoc = {
      _id: id,
      userId: repo.userId,
      repo_id: repo.repoId,
      sandbox_record_id: sandboxRecordId,
      base_branch: 'main',
      working_branch: 'main',
      root_directory: null,
      provider: 'local',
      file,
      bytes: 7,
      created_at: new Date(Date.now() - age),
    };
    await deps.snapshots.insert(doc);
    snapshots.push(doc);
  }
  return { userId: repo.userId, sandboxRecordId, snapshots };
}

async function deletionEvents(sandboxRecordId: string): Promise<{ decision_code: string | null; payload: Record<string, unknown> }[]> {
  return (await deps.sandboxRecords.lifecycleOf(sandboxRecordId)).filter((e) => e.event_type === 'snapshot_deleted');
}

describe('a snapshot older than SNAPSHOT_RETENTION_MS is deleted once, even with two instances sweeping', () => {
  test('two instances sweep at once (beside the service’s own keeper): the expired one is deleted (archive, record, one snapshot_deleted event); the fresh one stays', async () => {
    const { userId, sandboxRecordId, snapshots } = await snapshotsOf([2 * 3_600_000, 1_000]);
    const [expired, fresh] = snapshots as [SnapshotDoc, SnapshotDoc];
    const other: LifecycleDeps = { ...deps, instanceId: 'another-instance' };
    await Promise.all([deleteExpiredSnapshots(deps, new Date(), 20_000), deleteExpiredSnapshots(other, new Date(), 20_000)]);
    // Whichever of the three deleted it, the deletion is recorded once.
    for (let tries = 0; (await deletionEvents(sandboxRecordId)).length === 0; tries += 1) {
      if (tries > 300) throw new Error('the deletion was never recorded');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(existsSync(expired.file)).toBe(false);
    expect(await deps.snapshots.get(userId, expired._id)).toBeNull();
    expect(existsSync(fresh.file)).toBe(true);
    expect(await deps.snapshots.get(userId, fresh._id)).not.toBeNull();
    const events = await deletionEvents(sandboxRecordId);
    expect(events).toEqual([expect.objectContaining({ decision_code: 'retention', payload: { snapshot_id: expired._id, bytes: 7 } })]);
  });
});

describe('a user keeps at most SNAPSHOT_MAX_PER_USER snapshots: the oldest are deleted first', () => {
  test('four snapshots with a maximum of two: the two oldest go (user_limit), the two newest stay', async () => {
    const { userId, sandboxRecordId, snapshots } = await snapshotsOf([40_000, 30_000, 20_000, 10_000]);
    expect(await trimUserSnapshots(deps, userId, 20_000)).toBe(2);
    const kept = await Promise.all(snapshots.map((s) => deps.snapshots.get(userId, s._id)));
    expect(kept.map((doc) => doc !== null)).toEqual([false, false, true, true]);
    expect(snapshots.map((s) => existsSync(s.file))).toEqual([false, false, true, true]);
    expect((await deletionEvents(sandboxRecordId)).map((e) => [e.decision_code, e.payload.snapshot_id])).toEqual([
      ['user_limit', snapshots[0]?._id],
      ['user_limit', snapshots[1]?._id],
    ]);
  });
});
