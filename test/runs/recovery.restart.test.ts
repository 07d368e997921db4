// A run never stays pending or streaming forever: services killed mid-run, a sandbox service that is
// away, a harness that runs too long. Short limits so the suite does not wait half an hour.
import { MongoClient } from 'mongodb';
import { waitFor, ownSystem } from '@ars/testenv';
import { dataOf, errorOf } from '../support/accounts.js';
import { harnessPid, newRunsUser, processAlive, reportedPid, type RunEvent } from '../support/runs.js';

const LIMITS = {
  RUN_TIMEOUT_MS: '15000',
  // Long enough for a sandbox to be allocated on a machine shared by several suites.
  RUN_START_TIMEOUT_MS: '20000',
  // The watchdog's lostBy (createdAt + timeout + grace) must fall after the harness limit even when
  // the sandbox took seconds to start, and after a killed runs is back reading what it missed (its
  // consumer rejoins the group only once the dead member's session has timed out).
  RUN_LOST_GRACE_MS: '60000',
  WATCHDOG_INTERVAL_MS: '500',
  SESSION_HEARTBEAT_MS: '500',
  SESSION_LOST_AFTER_MS: '3000',
  // A Claude Code CLI that dies at once: every claude-code run here meets a harness crash.
  CLAUDE_CODE_PATH: '/bin/false',
};

const system = ownSystem('it kills and restarts runs and sandboxes', LIMITS);

/** Sandboxes' session of a run (its own record of what it did), read from the stack's MongoDB. */
interface Session {
  state: 'cancel_requested' | 'allocating' | 'running' | 'finished';
  sandboxRecordId: string | null;
  result: { status: string; failure: string | null } | null;
  _outbox?: unknown[];
}

/**
 * Waits until the run's session in sandboxes is finished and its `run.finished` has left the outbox:
 * sandboxes has decided and published everything it will for the run (a definite signal, not a time).
 */
async function sessionPublishedItsEnd(runId: string, timeoutMs: number): Promise<Session> {
  const client = await MongoClient.connect(system().mongoUrl);
  try {
    const sessions = client.db('ars_sandboxes').collection<Session & { _id: string }>('sessions');
    let session: Session | null = null;
    await waitFor(
      `the sandboxes session of ${runId} to publish its end`,
      async () => {
        session = await sessions.findOne({ _id: runId });
        return session?.state === 'finished' && (session._outbox ?? []).length === 0;
      },
      timeoutMs,
    );
    return session as unknown as Session;
  } finally {
    await client.close();
  }
}

/** Each event once: no two events with the same type, tool and message (the prompts make them unique). */
function expectNoDuplicates(events: RunEvent[]): void {
  const signatures = events.map((e) => `${e.type}|${e.toolName ?? ''}|${e.message ?? ''}|${JSON.stringify(e.payload)}`);
  expect(new Set(signatures).size).toBe(signatures.length);
  expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
}

describe('the runs service killed mid-run and restarted: the run still ends correctly, no event duplicated or lost', () => {
  test('kill -9 of runs while the agent works; after the restart the run is success with every event once', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const run = await runs.started({ repoId, prompt: '@say one\n@sleep 3000\n@say two\n@shell echo three\n@say four' });
    await runs.waitFor(run.runId, (r) => r.status === 'streaming');
    await system().stack.services.runs.kill();
    // The sandbox carries on without runs: every remaining event and the finish are published while
    // runs is down, and the restarted runs must take each exactly once.
    const session = await sessionPublishedItsEnd(run.runId, 30_000);
    expect(session.result).toMatchObject({ status: 'success' });
    await system().stack.services.runs.start();
    const { run: done, events } = await runs.waitFor(run.runId, undefined, 90_000);
    expect(done).toMatchObject({ status: 'success' });
    expect(events.filter((e) => e.type === 'assistant_message').map((e) => e.message)).toEqual(['one', 'two', 'four']);
    expect(events.filter((e) => e.type === 'tool_call')).toHaveLength(1);
    expect(events[0]?.type).toBe('stream_started');
    expectNoDuplicates(events);
  }, 180_000);
});

describe('the sandboxes service killed mid-run and restarted: the run ends failed, saying the sandbox was lost', () => {
  test('kill -9 of sandboxes during @sleep; the harness dies with it; after the restart the run is failed', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    // A command the agent left running in the background: its shell has a process group of its own.
    const prompt = '@shell sleep 120 >/dev/null 2>&1 & echo left-pid=$! cwd=$PWD\n@shell echo harness-pid=$PPID cwd=$PWD\n@sleep 60000\n@say never';
    const run = await runs.started({ repoId, prompt });
    const { events: before } = await runs.waitFor(run.runId, (_r, seen) => harnessPid(seen) !== undefined);
    const pid = harnessPid(before) ?? 0;
    const leftPid = reportedPid(before, 'left-pid') ?? 0;
    expect(processAlive(leftPid)).toBe(true);
    await system().stack.services.sandboxes.kill();
    await waitFor(`harness process ${pid} to be gone`, () => !processAlive(pid), 5_000);
    await system().stack.services.sandboxes.start();
    const { run: done, events } = await runs.waitFor(run.runId, undefined, 30_000);
    // The sweep that ends the lost session releases its sandbox: what the agent left running goes too.
    await waitFor(`the background process ${leftPid} to be gone`, () => !processAlive(leftPid), 10_000);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/sandbox was lost/i);
    expect(events.map((e) => e.message)).not.toContain('never');
    expectNoDuplicates(events);
  }, 90_000);
});

describe('cancel needs the sandbox: 409 CONFLICT while the sandboxes service cannot be reached', () => {
  test('sandboxes killed: cancel is 409 and the run is unchanged; back up, the run ends and cancel is already_terminal', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const run = await runs.started({ repoId, prompt: '@sleep 60000' });
    await runs.waitFor(run.runId, (r) => r.status === 'streaming');
    await system().stack.services.sandboxes.kill();
    try {
      const refused = await runs.cancel(run.runId);
      expect(refused.status).toBe(409);
      expect(errorOf(refused).code).toBe('CONFLICT');
      expect(dataOf(await runs.get(run.runId)).run.status).toBe('streaming');
    } finally {
      await system().stack.services.sandboxes.start();
    }
    // The restarted sandboxes service finds the session its predecessor lost and ends it.
    const { run: after } = await runs.waitFor(run.runId, undefined, 30_000);
    expect(after.status).toBe('failed');
    expect(dataOf(await runs.cancel(run.runId))).toMatchObject({ status: 'already_terminal', alreadyTerminal: true });
  }, 90_000);
});

describe('no sandbox allocated in time: the run fails instead of staying pending', () => {
  test('sandboxes down past RUN_START_TIMEOUT_MS: failed naming the allocation; nothing starts when it is back', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    await system().stack.services.sandboxes.stop();
    let runId = '';
    try {
      runId = (await runs.started({ repoId, prompt: '@say should not run' })).runId;
      const { run } = await runs.waitFor(runId, undefined, 60_000);
      expect(run.status).toBe('failed');
      expect(run.error).toMatch(/no sandbox was allocated/i);
    } finally {
      await system().stack.services.sandboxes.start();
    }
    // Back, sandboxes reads the request, finds its start deadline passed and records the run as not
    // started, publishing that end: past this point nothing can start it any more.
    const session = await sessionPublishedItsEnd(runId, 30_000);
    expect(session).toMatchObject({ sandboxRecordId: null, result: { status: 'failed', failure: 'sandbox_allocation' } });
    const { run, events } = dataOf(await runs.events(runId));
    expect(run.status).toBe('failed');
    expect(events).toEqual([]);
  }, 120_000);
});

describe('a harness that runs longer than its timeout is stopped and the run fails saying so', () => {
  test('@sleep beyond RUN_TIMEOUT_MS: failed, the error names the timeout, the harness is gone', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const run = await runs.started({ repoId, prompt: '@shell echo harness-pid=$PPID cwd=$PWD\n@sleep 120000' });
    const { events } = await runs.waitFor(run.runId, (_r, seen) => harnessPid(seen) !== undefined);
    const pid = harnessPid(events) ?? 0;
    const { run: done } = await runs.waitFor(run.runId, undefined, 40_000);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/longer than|timed out|timeout/i);
    await waitFor('the harness process to be gone', () => !processAlive(pid), 5_000);
  }, 90_000);
});

describe('a harness that crashes ends the run failed, saying the harness crashed', () => {
  test('claude-code whose CLI exits at once: failed, the error names the crash', async () => {
    const { runs, repoId } = await newRunsUser(system().baseUrl);
    const run = await runs.started({ repoId, harness: 'claude-code', prompt: '@say hello' });
    const { run: done } = await runs.waitFor(run.runId, undefined, 30_000);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/claude-code harness crashed/);
  }, 60_000);
});
