// Idle stop, snapshots and restores through the gateway on the whole stack, with a short idle time.
import { jest } from '@jest/globals';
import { dataOf, errorOf } from '../support/accounts.js';
import { commitFiles, eventTypes, newSandboxesUser, type SandboxLogs } from '../support/sandboxes.js';
import { ownSystem } from '@ars/testenv';

jest.setTimeout(240_000);

const system = ownSystem('a short idle timeout and heartbeat, which would stop other suites’ sandboxes', {
  SANDBOX_IDLE_TIMEOUT_MS: '4000',
  SESSION_HEARTBEAT_MS: '500',
  SANDBOX_LOG_FLUSH_MS: '200',
});

/** An install step that leaves an untracked file the first time and reports it every time. */
const MARKER_INSTALL = JSON.stringify({ install: '[ -f marker.txt ] || { date +%s%N > marker.txt; echo created marker; }; echo "marker=$(cat marker.txt)"' });

function marker(logs: SandboxLogs): string | undefined {
  return /marker=(\d+)/.exec(logs.sandbox.install_log ?? '')?.[1];
}

function snapshotIdOf(logs: SandboxLogs): string | undefined {
  const payload = logs.lifecycle_events.find((e) => e.event_type === 'snapshot_created')?.payload;
  return typeof payload?.snapshot_id === 'string' ? payload.snapshot_id : undefined;
}

describe('a ready sandbox unused for SANDBOX_IDLE_TIMEOUT_MS stops, and its record stays readable', () => {
  test('idle stop: stopped, idle_stopped then snapshot_created and destroyed; the record and logs remain; it is no longer reused', async () => {
    const { client, repoId } = await newSandboxesUser(system().baseUrl);
    const sandbox = await client.created({ repoId, workingBranch: 'idle/one' });
    await client.waitForStatus(sandbox.id, 'ready');
    const stopped = await client.waitFor(sandbox.id, (l) => eventTypes(l).includes('destroyed'), 60_000, 'idle stop');
    expect(stopped.sandbox.status).toBe('stopped');
    expect(stopped.sandbox.error).toBeNull();
    expect(stopped.lifecycle_events.find((e) => e.event_type === 'idle_stopped')?.decision_code).toBe('idle_timeout');
    const types = eventTypes(stopped);
    expect(types.indexOf('idle_stopped')).toBeLessThan(types.indexOf('snapshot_created'));
    expect(types.indexOf('snapshot_created')).toBeLessThan(types.indexOf('destroyed'));
    expect(snapshotIdOf(stopped)).toMatch(/^snap_/);
    expect(dataOf(await client.list('?status=stopped')).sandboxes.map((s) => s.id)).toEqual([sandbox.id]);
    const fresh = await client.created({ repoId, workingBranch: 'idle/one' });
    expect(fresh.id).not.toBe(sandbox.id);
  });

  test('a reuse counts as use: last_active_at moves', async () => {
    const { client, repoId } = await newSandboxesUser(system().baseUrl);
    const sandbox = await client.created({ repoId, workingBranch: 'idle/used' });
    await client.waitForStatus(sandbox.id, 'ready');
    const before = dataOf(await client.logs(sandbox.id)).sandbox.last_active_at;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const reused = await client.created({ repoId, workingBranch: 'idle/used' });
    expect(reused.id).toBe(sandbox.id);
    expect(Date.parse(reused.last_active_at)).toBeGreaterThan(Date.parse(before));
  });
});

describe('snapshots: a stopped sandbox is snapshotted; restoreSnapshotId brings its working tree back', () => {
  test('snapshot and restore round trip: the restored sandbox has the untracked file of the first', async () => {
    const { client, account, repoId } = await newSandboxesUser(system().baseUrl);
    await commitFiles(system(), account, repoId, { '.ars/sandbox.json': MARKER_INSTALL });
    const original = await client.created({ repoId, workingBranch: 'snap/work' });
    const ready = await client.waitForStatus(original.id, 'ready');
    expect(ready.sandbox.install_log).toMatch(/^created marker$/m);
    const first = marker(ready);
    expect(first).toBeDefined();
    const stopped = await client.waitFor(original.id, (l) => snapshotIdOf(l) !== undefined, 60_000, 'snapshot');
    const snapshotId = snapshotIdOf(stopped) ?? '';

    const restored = await client.created({ repoId, restoreSnapshotId: snapshotId });
    expect(restored.id).not.toBe(original.id);
    expect(restored).toMatchObject({ base_branch: 'main', working_branch: 'snap/work', status: 'provisioning' });
    const back = await client.waitForStatus(restored.id, 'ready');
    expect(marker(back)).toBe(first);
    expect(back.sandbox.install_log).not.toMatch(/^created marker$/m);
    expect(back.lifecycle_events.find((e) => e.event_type === 'requested')).toMatchObject({
      decision_code: 'restore_snapshot',
      payload: { snapshot_id: snapshotId },
    });
    expect(back.lifecycle_events.find((e) => e.event_type === 'provisioned')?.decision_code).toBe('snapshot_restored');

    // Scoped restore: the snapshot's own project (repository) and team (owner) match; others do not.
    const scoped = await client.create({ repoId, restoreSnapshotId: snapshotId, restoreSnapshotProjectId: repoId, restoreSnapshotTeamId: account.userId });
    expect(scoped.status).toBe(202);
    const wrongProject = await client.create({ repoId, restoreSnapshotId: snapshotId, restoreSnapshotProjectId: 'another-project' });
    expect(wrongProject.status).toBe(404);
    const otherBranch = await client.create({ repoId, restoreSnapshotId: snapshotId, workingBranch: 'snap/other' });
    expect(otherBranch.status).toBe(400);
    expect(errorOf(otherBranch).message).toContain('workingBranch');
  });

  test("an unknown snapshot or another user's is 404; a snapshot of another repository is 400", async () => {
    const owner = await newSandboxesUser(system().baseUrl);
    const sandbox = await owner.client.created({ repoId: owner.repoId, workingBranch: 'snap/errors' });
    const stopped = await owner.client.waitFor(sandbox.id, (l) => snapshotIdOf(l) !== undefined, 60_000, 'snapshot');
    const snapshotId = snapshotIdOf(stopped) ?? '';

    const unknown = await owner.client.create({ repoId: owner.repoId, restoreSnapshotId: 'snap_unknown' });
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown)).toMatchObject({ code: 'NOT_FOUND' });
    expect(errorOf(unknown).message).toContain('snapshot');

    const otherRepo = await owner.client.create({ repoId: owner.otherRepoId, restoreSnapshotId: snapshotId });
    expect(otherRepo.status).toBe(400);
    expect(errorOf(otherRepo).message).toContain('another repository');

    const stranger = await newSandboxesUser(system().baseUrl, 1);
    const foreign = await stranger.client.create({ repoId: stranger.repoId, restoreSnapshotId: snapshotId });
    expect(foreign.status).toBe(404);
    expect(errorOf(foreign).code).toBe('NOT_FOUND');
  });
});
