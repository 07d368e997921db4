// A workspace session's sandbox across two instances of the service: the next run of the session
// reaching an instance that does not keep the live sandbox asks for it; the keeping instance stops
// it snapshotted (`stopped` `workspace_handover`), and the run, held in its queue meanwhile,
// restores it: the file the first run left is there. While the snapshot is being taken the sandbox
// still holds the session: a run of it arriving then (on either instance) is held, never given a
// new, empty sandbox.
import { randomBytes } from 'node:crypto';
import { createLogger } from '@ars/logger';
import { freePort, waitFor, type NotYet } from '@ars/testenv';
import { startSandboxes, type RunningSandboxes } from '../sandboxes.js';
import { fastSession, startSandboxesKit, type SandboxesKit, type TestRepo } from '../testing/sandboxesKit.js';
import { stopSandbox } from '../lifecycle/stopSandbox.js';
import type { SandboxDoc } from '../store/collections.js';
import { startRunSession } from './startRunSession.js';
import { takeWorkspaceSandbox } from './workspaceSandbox.js';

let kit: SandboxesKit;
let keeping: RunningSandboxes;
let other: RunningSandboxes | undefined;
let repo: TestRepo;

beforeAll(async () => {
  kit = await startSandboxesKit();
  keeping = await kit.startService();
  repo = await kit.newRepo();
}, 60_000);

afterAll(async () => {
  await other?.shutdown('test over');
  await kit?.stop();
}, 60_000);

async function otherInstance(): Promise<RunningSandboxes> {
  other ??= await startOther();
  return other;
}

async function startOther(): Promise<RunningSandboxes> {
  const logger = createLogger({ service: 'sandboxes-b', level: 'debug', destination: { write: (line: string) => void kit.logLines.push(line) } });
  return startSandboxes({
    handleSignals: false,
    exit: () => undefined,
    logger,
    consumerSession: fastSession,
    env: { PORT: String(await freePort()), ...kit.serviceEnv() },
  });
}

describe('a run of a workspace session on another instance than the one keeping its sandbox', () => {
  test('the keeping instance stops the sandbox snapshotted when asked, and the run restores it with the file the first run left', async () => {
    const workspaceSessionId = `ws-${randomBytes(4).toString('hex')}`;
    const first = await kit.requestRun(repo, '@write notes.txt left by the first run', { workspaceSessionId });
    expect(await kit.waitFinished(first.runId, 60_000)).toMatchObject({ status: 'success' });
    const firstRecord = kit.messages(first.runId).allocated[0]?.sandboxRecordId ?? '';
    // The run's end is reported before its sandbox is kept for the session's next run.
    const kept = await waitFor('the sandbox kept between runs', async (): Promise<SandboxDoc | NotYet> => {
      const doc = await keeping.lifecycle.sandboxRecords.byId(firstRecord);
      return doc?.runId === null ? doc : undefined;
    });
    expect(kept).toMatchObject({ status: 'ready', runId: null, instanceId: keeping.deps.instanceId, workspace_session_id: workspaceSessionId });

    other = await otherInstance();
    // Handed to the other instance directly, as its runs.requested consumer would.
    const second = { ...first, runId: `run_${randomBytes(8).toString('hex')}`, prompt: '@shell cat notes.txt' };
    await startRunSession(other.deps, second);
    const finished = await kit.waitFinished(second.runId, 60_000);
    expect(finished).toMatchObject({ status: 'success' });
    // Runs was told why it waited (and its start deadline restarted), then that it left the queue.
    const notices = await kit.waitFor('the queued and dequeued notices', () => {
      const seen = kit.messages(second.runId).queued.map((n) => `${n.state}:${n.reason}`);
      return seen.includes('dequeued:workspace_busy') ? seen : undefined;
    });
    expect(notices[0]).toBe('queued:workspace_busy');

    const output = kit.messages(second.runId).events.find((e) => e.eventType === 'tool_call')?.payload.output;
    expect(String(output)).toContain('left by the first run');
    const secondRecord = kit.messages(second.runId).allocated[0]?.sandboxRecordId ?? '';
    expect(secondRecord).not.toBe(firstRecord);
    const firstEnd = await keeping.lifecycle.sandboxRecords.lifecycleOf(firstRecord);
    expect(firstEnd.map((e) => [e.event_type, e.decision_code])).toEqual(
      expect.arrayContaining([
        ['run_ended', 'success'],
        ['stopped', 'workspace_handover'],
        ['snapshot_created', null],
      ]),
    );
    const restored = await other.lifecycle.sandboxRecords.byId(secondRecord);
    expect(restored?.restored_from).toMatch(/^snap_/);
    // The session's sandbox is the other instance's now: kept by it between runs.
    await waitFor('the restored sandbox kept by the other instance', async (): Promise<true | NotYet> => {
      const doc = await other?.lifecycle.sandboxRecords.byId(secondRecord);
      return doc?.runId === null && doc.instanceId === other?.deps.instanceId ? true : undefined;
    });
  }, 120_000);
});

describe('a workspace sandbox holds its session until its snapshot is recorded', () => {
  test('a run of the session arriving while the idle stop snapshots it is held on both instances, then restores the file', async () => {
    // Both instances consume runs.requested: the session's first run may land on either, which keeps its sandbox.
    const instances = [keeping, await otherInstance()];
    const workspaceSessionId = `ws-${randomBytes(4).toString('hex')}`;
    const first = await kit.requestRun(repo, '@write notes.txt kept through the idle stop', { workspaceSessionId });
    expect(await kit.waitFinished(first.runId, 60_000)).toMatchObject({ status: 'success' });
    const recordId = kit.messages(first.runId).allocated[0]?.sandboxRecordId ?? '';
    const keeper = await waitFor('the sandbox kept between runs', () => instances.find((instance) => instance.lifecycle.live.get(recordId)));
    const elsewhere = instances.find((instance) => instance !== keeper)!;
    const live = keeper.lifecycle.live.get(recordId)!;
    expect(live.workspaceSession).toBe(true);

    // The snapshot waits on a latch, so the run below meets the stop exactly mid-snapshot.
    const provider = keeper.lifecycle.provider;
    const takeSnapshot = provider.snapshot;
    let snapshotBegun: () => void = () => undefined;
    const begun = new Promise<void>((resolve) => (snapshotBegun = resolve));
    let finishSnapshot: () => void = () => undefined;
    const latch = new Promise<void>((resolve) => (finishSnapshot = resolve));
    provider.snapshot = async (sandbox, file) => {
      provider.snapshot = takeSnapshot;
      snapshotBegun();
      await latch;
      return takeSnapshot.call(provider, sandbox, file);
    };
    try {
      const stopping = stopSandbox(keeper.lifecycle, live, 'idle_timeout');
      await begun;
      const next = { ...first, runId: `run_${randomBytes(8).toString('hex')}`, prompt: '@shell cat notes.txt' };
      await expect(takeWorkspaceSandbox(keeper.deps, next, workspaceSessionId)).resolves.toEqual({ kind: 'held' });
      await expect(takeWorkspaceSandbox(elsewhere.deps, next, workspaceSessionId)).resolves.toEqual({ kind: 'held' });
      const midSnapshot = await keeper.lifecycle.sandboxRecords.byId(recordId);
      expect(midSnapshot).toMatchObject({ status: 'ready', reuse_key: expect.any(String) });
      finishSnapshot();
      await expect(stopping).resolves.toBe(true);
    } finally {
      finishSnapshot();
      provider.snapshot = takeSnapshot;
    }
    const stopped = await keeper.lifecycle.sandboxRecords.byId(recordId);
    expect(stopped?.status).toBe('stopped');
    expect(stopped?.reuse_key).toBeUndefined();
    const lifecycle = (await keeper.lifecycle.sandboxRecords.lifecycleOf(recordId)).map((e) => e.event_type);
    expect(lifecycle.slice(lifecycle.indexOf('idle_stopped'))).toEqual(['idle_stopped', 'snapshot_created', 'destroyed']);

    const restored = await kit.requestRun(repo, '@shell cat notes.txt', { workspaceSessionId });
    expect(await kit.waitFinished(restored.runId, 60_000)).toMatchObject({ status: 'success' });
    const output = kit.messages(restored.runId).events.find((e) => e.eventType === 'tool_call')?.payload.output;
    expect(String(output)).toContain('kept through the idle stop');
  }, 120_000);
});
