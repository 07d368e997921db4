// A workspace session's sandbox across two instances of the service: the next run of the session
// reaching an instance that does not keep the live sandbox asks for it; the keeping instance stops
// it snapshotted (`stopped` `workspace_handover`), and the run, held in its queue meanwhile,
// restores it: the file the first run left is there.
import { randomBytes } from 'node:crypto';
import { createLogger } from '@ars/logger';
import { freePort, waitFor, type NotYet } from '@ars/testenv';
import { startSandboxes, type RunningSandboxes } from '../sandboxes.js';
import { fastSession, startSandboxesKit, type SandboxesKit, type TestRepo } from '../testing/sandboxesKit.js';
import { startRun } from './startRun.js';

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
    expect((await kit.waitFinished(first.runId, 60_000)).status).toBe('success');
    const firstRecord = kit.messages(first.runId).allocated[0]?.sandboxRecordId ?? '';
    const kept = await keeping.lifecycle.sandboxes.byId(firstRecord);
    expect(kept).toMatchObject({ status: 'ready', runId: null, instanceId: keeping.deps.instanceId, workspace_session_id: workspaceSessionId });

    other = await startOther();
    // Handed to the other instance directly, as its runs.requested consumer would.
    const second = { ...first, runId: `run_${randomBytes(8).toString('hex')}`, prompt: '@shell cat notes.txt' };
    await startRun(other.deps, second);
    const finished = await kit.waitFinished(second.runId, 60_000);
    expect(finished.status).toBe('success');
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
    const firstEnd = await keeping.lifecycle.sandboxes.lifecycleOf(firstRecord);
    expect(firstEnd.map((e) => [e.event_type, e.decision_code])).toEqual(
      expect.arrayContaining([
        ['run_ended', 'success'],
        ['stopped', 'workspace_handover'],
        ['snapshot_created', null],
      ]),
    );
    const restored = await other.lifecycle.sandboxes.byId(secondRecord);
    expect(restored?.restored_from).toMatch(/^snap_/);
    // The session's sandbox is the other instance's now: kept by it between runs.
    await waitFor('the restored sandbox kept by the other instance', async (): Promise<true | NotYet> => {
      const doc = await other?.lifecycle.sandboxes.byId(secondRecord);
      return doc?.runId === null && doc.instanceId === other?.deps.instanceId ? true : undefined;
    });
  }, 120_000);
});
