// The bounds of sandboxes through the gateway on the whole stack, with small limits: live sandboxes
// per user, lifecycle events kept per sandbox, snapshot retention.
import { jest } from '@jest/globals';
import { dataOf, errorOf } from '../support/accounts.js';
import { eventTypes, newSandboxesUser } from '../support/sandboxes.js';
import { ownSystem } from '@ars/testenv';

jest.setTimeout(240_000);

const system = ownSystem('sandbox limits of its own (sessions, live sandboxes per user, log caps)', {
  SANDBOX_MAX_LIVE_PER_USER: '2',
  SANDBOX_LIFECYCLE_EVENTS_MAX: '6',
  SANDBOX_IDLE_TIMEOUT_MS: '3000',
  SNAPSHOT_RETENTION_MS: '4000',
  SESSION_HEARTBEAT_MS: '500',
});

describe('a user holds at most SANDBOX_MAX_LIVE_PER_USER live sandboxes: a create over it is 409 CONFLICT saying so', () => {
  test('two live sandboxes, the third create is 409 naming the limit; a reuse of a live one is still 202; another user is not affected', async () => {
    const { client, repoId } = await newSandboxesUser(system().baseUrl);
    const first = await client.created({ repoId, workingBranch: 'cap/one' });
    await client.created({ repoId, workingBranch: 'cap/two' });

    const third = await client.create({ repoId, workingBranch: 'cap/three' });
    expect(third.status).toBe(409);
    expect(errorOf(third)).toEqual({ code: 'CONFLICT', message: expect.stringMatching(/^you already have 2 live sandboxes .*the most one user may have/) });

    const reused = await client.create({ repoId, workingBranch: 'cap/one' });
    expect(reused.status).toBe(202);
    expect(dataOf(reused).sandbox.id).toBe(first.id);

    const other = await newSandboxesUser(system().baseUrl, 1);
    expect((await other.client.create({ repoId: other.repoId, workingBranch: 'cap/three' })).status).toBe(202);
  });

  test('once one stops (idle), a new create is accepted again', async () => {
    const { client, repoId } = await newSandboxesUser(system().baseUrl);
    const first = await client.created({ repoId, workingBranch: 'cap/a' });
    await client.created({ repoId, workingBranch: 'cap/b' });
    expect((await client.create({ repoId, workingBranch: 'cap/c' })).status).toBe(409);
    await client.waitForStatus(first.id, 'ready');
    await client.waitFor(first.id, (l) => l.sandbox.status === 'stopped', 60_000, 'idle stop');
    expect((await client.create({ repoId, workingBranch: 'cap/c' })).status).toBe(202);
  });
});

describe('lifecycle events are capped per sandbox (SANDBOX_LIFECYCLE_EVENTS_MAX): the logs route answers the newest ones, oldest first', () => {
  test('a sandbox with more events than the cap answers exactly the cap, the newest, in order', async () => {
    const { client, repoId } = await newSandboxesUser(system().baseUrl);
    const sandbox = await client.created({ repoId, workingBranch: 'events/many' });
    const ready = await client.waitForStatus(sandbox.id, 'ready');
    expect(eventTypes(ready)[0]).toBe('requested');
    for (let i = 0; i < 8; i += 1) expect(dataOf(await client.create({ repoId, workingBranch: 'events/many' })).sandbox.id).toBe(sandbox.id);

    const logs = dataOf(await client.logs(sandbox.id));
    expect(logs.lifecycle_events).toHaveLength(6);
    // The newest kept: every one of the last six is a reuse (unless the idle stop came first, which adds newer ones still).
    expect(eventTypes(logs)).not.toContain('requested');
    const times = logs.lifecycle_events.map((e) => Date.parse(e.created_at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(logs.lifecycle_events.filter((e) => e.event_type === 'reused').length).toBeGreaterThanOrEqual(1);
  });
});

describe('snapshots older than SNAPSHOT_RETENTION_MS are deleted: the lifecycle records it and restoring it is 404', () => {
  test('idle stop, snapshot, then snapshot_deleted (retention); restoreSnapshotId of it answers 404 like an unknown one', async () => {
    const { client, repoId } = await newSandboxesUser(system().baseUrl);
    const sandbox = await client.created({ repoId, workingBranch: 'retention/one' });
    await client.waitForStatus(sandbox.id, 'ready');
    const deleted = await client.waitFor(sandbox.id, (l) => eventTypes(l).includes('snapshot_deleted'), 90_000, 'the snapshot deleted');
    const event = deleted.lifecycle_events.find((e) => e.event_type === 'snapshot_deleted');
    expect(event).toMatchObject({ decision_code: 'retention', payload: { snapshot_id: expect.stringMatching(/^snap_/) } });
    const snapshotId = String(event?.payload.snapshot_id);

    const restore = await client.create({ repoId, restoreSnapshotId: snapshotId });
    expect(restore.status).toBe(404);
    expect(errorOf(restore)).toEqual({ code: 'NOT_FOUND', message: `snapshot "${snapshotId}" not found` });
  });
});
