// Runs that continue, on the whole stack: the runs of one conversation continue one agent thread
// (the stand-ins' `@recall` lists the thread's earlier prompts), also when each run has a sandbox of
// its own; the runs of one workspace session share one sandbox (a file written and not pushed is
// there for the next run), also after the idle stop snapshotted it and the next run restored it;
// one live run per conversation or workspace session.
import { dataOf } from '../support/accounts.js';
import { newRunsUser, type RunEvent, type RunsClient } from '../support/runs.js';
import { SandboxesClient, eventTypes } from '../support/sandboxes.js';
import { ownSystem } from '@ars/testenv';

const IDLE_TIMEOUT_MS = 3_000;
const system = ownSystem('a short sandbox idle timeout, which would stop other suites’ sandboxes', { SANDBOX_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS) });
let runs: RunsClient;
let sandboxes: SandboxesClient;
let repoId: string;
// A user of its own for each test: a test starts up to 5 runs, and a user may start 10 a minute.
beforeEach(async () => {
  ({ runs, repoId } = await newRunsUser(system().baseUrl));
  sandboxes = new SandboxesClient(system().baseUrl, [runs.token]);
}, 60_000);

const unique = (name: string): string => `${name}-${Math.random().toString(36).slice(2, 10)}`;

async function ranToTheEnd(body: Record<string, unknown>): Promise<{ runId: string; status: string; sandboxRecordId: string | null; events: RunEvent[] }> {
  const run = await runs.started({ repoId, ...body });
  const { run: ended } = await runs.waitFor(run.runId, undefined, 120_000);
  return { runId: run.runId, status: ended.status, sandboxRecordId: ended.sandboxRecordId, events: dataOf(await runs.events(run.runId, 200)).events };
}

/** What became of the conversation's thread in the run's sandbox: its `thread_*` lifecycle events, in order. */
async function threadDecisions(run: { runId: string; sandboxRecordId: string | null }): Promise<Record<string, unknown>[]> {
  const logs = dataOf(await sandboxes.logs(run.sandboxRecordId ?? ''));
  return logs.lifecycle_events
    .filter((e) => e.event_type.startsWith('thread_') && e.worker_run_id === run.runId)
    .map((e) => ({ event_type: e.event_type, decision_code: e.decision_code, payload: e.payload }));
}

const messages = (events: RunEvent[]): string[] => events.filter((e) => e.type === 'assistant_message').map((e) => e.message ?? '');
const shellOutputs = (events: RunEvent[]): string[] =>
  events.filter((e) => e.type === 'tool_call' && e.payload.kind === 'shell').map((e) => String(e.payload.output ?? ''));

describe.each(['codex', 'claude-code'])('%s: a follow-up in one conversation continues its agent thread', (harness) => {
  test('the third run of a conversation answers @recall with both earlier prompts, oldest first', async () => {
    const conversationId = unique('conv');
    const first = await ranToTheEnd({ harness, conversationId, prompt: 'Where is the config read?' });
    const second = await ranToTheEnd({ harness, conversationId, prompt: 'And who writes it?' });
    expect([first.status, second.status]).toEqual(['success', 'success']);
    // Each run had a sandbox of its own: the thread survived the sandbox that made it.
    expect(second.sandboxRecordId).not.toBe(first.sandboxRecordId);
    const third = await ranToTheEnd({ harness, conversationId, prompt: '@recall' });
    expect(third).toMatchObject({ status: 'success' });
    expect(messages(third.events)).toContain('Where is the config read?\nAnd who writes it?');
  }, 300_000);

  test('a run of another conversation (or none) starts a thread of its own', async () => {
    const conversationId = unique('conv');
    await ranToTheEnd({ harness, conversationId, prompt: 'Only in this conversation' });
    const other = await ranToTheEnd({ harness, conversationId: unique('conv'), prompt: '@recall' });
    const none = await ranToTheEnd({ harness, prompt: '@recall' });
    for (const run of [other, none]) expect(messages(run.events).join('\n')).not.toContain('Only in this conversation');
  }, 300_000);
});

describe("what became of a conversation's thread is in each run's sandbox lifecycle", () => {
  test('the first run starts a thread and keeps it; the next resumes it (from the run that kept it) and keeps it; a run of no conversation records nothing', async () => {
    const conversationId = unique('conv');
    const first = await ranToTheEnd({ harness: 'claude-code', conversationId, prompt: 'Where is the config read?' });
    const second = await ranToTheEnd({ harness: 'claude-code', conversationId, prompt: 'And who writes it?' });
    const none = await ranToTheEnd({ harness: 'claude-code', prompt: 'No conversation' });
    const kept = { event_type: 'thread_kept', decision_code: 'kept', payload: expect.objectContaining({ conversationId, files: expect.any(Number) }) };
    expect(await threadDecisions(first)).toEqual([{ event_type: 'thread_new', decision_code: 'first_run', payload: { conversationId } }, kept]);
    expect(await threadDecisions(second)).toEqual([
      { event_type: 'thread_resumed', decision_code: 'restored', payload: { conversationId, threadId: expect.any(String), fromRunId: first.runId } },
      kept,
    ]);
    expect(await threadDecisions(none)).toEqual([]);
  }, 300_000);
});

describe('a conversation whose thread outgrew what is kept between runs (4 MiB)', () => {
  test('its next run fails with run.error saying so, never a silent new thread; a new conversation runs', async () => {
    const conversationId = unique('conv');
    // The agent grows its own thread file (codex's rollout, under its HOME) past the limit.
    const grow = '@shell f=$(ls $HOME/.codex/sessions/*/*/*/rollout-*.jsonl) && head -c 5000000 /dev/zero | tr \'\\0\' x >> "$f" && echo grown';
    const grown = await ranToTheEnd({ harness: 'codex', conversationId, prompt: grow });
    expect(grown).toMatchObject({ status: 'success' });
    expect(shellOutputs(grown.events).join('')).toContain('grown');
    const next = await runs.started({ repoId, harness: 'codex', conversationId, prompt: '@recall' });
    const { run: ended } = await runs.waitFor(next.runId, undefined, 120_000);
    expect(ended.status).toBe('failed');
    expect(ended.error).toBe(
      "the conversation's thread is over 4194304 bytes, the most kept between its runs: continue in a new conversation (another conversationId)",
    );
    const fresh = await ranToTheEnd({ harness: 'codex', conversationId: unique('conv'), prompt: '@recall' });
    expect([fresh.status, messages(fresh.events)]).toEqual(['success', ['no earlier prompts']]);
  }, 300_000);
});

describe('the runs of one workspace session share one sandbox', () => {
  test('a file written (not pushed) by one run is read by the next, in the same sandbox', async () => {
    const workspaceSessionId = unique('ws');
    const first = await ranToTheEnd({ workspaceSessionId, prompt: '@write notes/draft.txt kept between runs' });
    const second = await ranToTheEnd({ workspaceSessionId, prompt: '@shell cat notes/draft.txt' });
    expect([first.status, second.status]).toEqual(['success', 'success']);
    expect(second.sandboxRecordId).toBe(first.sandboxRecordId);
    expect(shellOutputs(second.events)[0]).toContain('kept between runs');
    const other = await ranToTheEnd({ workspaceSessionId: unique('ws'), prompt: '@shell cat notes/draft.txt' });
    expect(other.sandboxRecordId).not.toBe(first.sandboxRecordId);
    expect(shellOutputs(other.events)[0]).toContain('No such file');
  }, 300_000);

  test('after the idle stop (snapshotted) the next run restores the sandbox from its snapshot', async () => {
    const workspaceSessionId = unique('ws');
    const first = await ranToTheEnd({ workspaceSessionId, prompt: '@write notes/draft.txt survives the idle stop' });
    expect(first).toMatchObject({ status: 'success' });
    const stopped = await sandboxes.waitFor(
      first.sandboxRecordId ?? '',
      (logs) => logs.sandbox.status === 'stopped' && eventTypes(logs).includes('destroyed'),
      60_000,
      'the idle stop, its snapshot and the release',
    );
    expect(eventTypes(stopped)).toEqual(expect.arrayContaining(['run_ended', 'idle_stopped', 'snapshot_created', 'destroyed']));
    const restored = await ranToTheEnd({ workspaceSessionId, prompt: '@shell cat notes/draft.txt' });
    expect(restored).toMatchObject({ status: 'success' });
    expect(restored.sandboxRecordId).not.toBe(first.sandboxRecordId);
    expect(shellOutputs(restored.events)[0]).toContain('survives the idle stop');
    const logs = dataOf(await sandboxes.logs(restored.sandboxRecordId ?? ''));
    expect(logs.lifecycle_events.find((e) => e.event_type === 'requested')?.decision_code).toBe('workspace_restore');
  }, 300_000);
});

describe('one live run at a time per conversation and per workspace session', () => {
  test.each(['conversationId', 'workspaceSessionId'])(
    'a second live run naming the same %s is 409 CONFLICT naming the run that holds it',
    async (field) => {
      const id = unique('busy');
      const holder = await runs.started({ repoId, [field]: id, prompt: '@sleep 4000\n@say done' });
      const second = await runs.start({ repoId, [field]: id, prompt: '@say too soon' }, unique('key'));
      expect(second.status).toBe(409);
      expect(second.body).toMatchObject({ error: { code: 'CONFLICT' } });
      expect(JSON.stringify(second.body)).toContain(holder.runId);
      await runs.waitFor(holder.runId, undefined, 120_000);
      const after = await ranToTheEnd({ [field]: id, prompt: '@say my turn' });
      expect(after).toMatchObject({ status: 'success' });
    },
    300_000,
  );
});
