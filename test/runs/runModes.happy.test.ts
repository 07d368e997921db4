// `mode` on the whole stack: a read-only mode (`plan`, `read-only`) keeps the agent from changing
// the working tree — codex runs with `--sandbox read-only`, Claude Code in plan mode, and the tree is
// mounted read-only in the sandbox (the stack's bubblewrap isolation) — and the run
// still ends in a defined state; `stream_started` names the mode that ran; any other value runs the
// default mode, named too.
import { dataOf } from '../support/accounts.js';
import { newRunsUser, type RunEvent, type RunsClient } from '../support/runs.js';
import { sharedSystem } from '@ars/testenv';

const system = sharedSystem();
let runs: RunsClient;
let repoId: string;
beforeAll(async () => {
  ({ runs, repoId } = await newRunsUser(system().baseUrl));
}, 60_000);

async function ranWith(harness: string, mode: string | undefined, prompt: string): Promise<{ status: string; events: RunEvent[] }> {
  const run = await runs.started({ repoId, prompt, harness, ...(mode === undefined ? {} : { mode }) });
  const { run: ended } = await runs.waitFor(run.runId, undefined, 120_000);
  return { status: ended.status, events: dataOf(await runs.events(run.runId, 200)).events };
}

/** What each shell command of the run printed, in order. */
const shellOutputs = (events: RunEvent[]) =>
  events.filter((e) => e.type === 'tool_call' && e.payload.kind === 'shell').map((e) => String(e.payload.output ?? ''));

describe.each(['codex', 'claude-code'])('%s: a read-only mode refuses changes to files, and the run still ends', (harness) => {
  test('mode plan: the @write is refused, and so is a shell command writing (the tree is mounted read-only); the run succeeds, stream_started names the mode', async () => {
    const { status, events } = await ranWith(harness, 'plan', ['@write notes.txt hello', '@shell touch made.txt', '@shell ls', '@say done'].join('\n'));
    expect(status).toBe('success');
    expect(events[0]?.type).toBe('stream_started');
    expect(events[0]?.message).toContain('(mode: plan, read-only)');
    expect(events[0]?.payload).toEqual({});
    expect(JSON.stringify(events)).toContain('read-only');
    const [touch, listing] = shellOutputs(events);
    expect(touch).toContain('Read-only file system');
    expect(listing).not.toMatch(/notes\.txt|made\.txt/);
  }, 150_000);

  test('no mode runs the default mode and writes; another value is named and runs the default mode too', async () => {
    const plain = await ranWith(harness, undefined, ['@write notes.txt hello', '@shell ls', '@say done'].join('\n'));
    expect(plain).toMatchObject({ status: 'success' });
    expect(plain.events[0]?.message).toContain('(mode: default)');
    expect(shellOutputs(plain.events).join('\n')).toContain('notes.txt');
    const other = await ranWith(harness, 'agent', '@say hi');
    expect(other.events[0]?.message).toContain('(mode: agent)');
  }, 150_000);
});
