// Commands codex did not report on its JSONL stream, recovered from its rollout: fed the records
// real codex-cli 0.163.0 wrote (fixtures/codex-0.163-rollouts.json), one turn per case.
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandInScript, findRollout, readRolloutRecords, tokenTotalsIn, turnTokens, unreportedCommands } from './codexRollout.js';

type Case =
  | 'codeModeSandboxFailedToStart'
  | 'codeModeCommandRan'
  | 'codeModeCommandStillRunningWhenCallReturned'
  | 'classicToolSandboxFailedToStart'
  | 'codeModeArgumentsRefused';

const fixtures = JSON.parse(readFileSync(new URL('./fixtures/codex-0.163-rollouts.json', import.meta.url), 'utf8')) as Record<Case, unknown[]>;

describe('unreportedCommands (real codex 0.163 rollout records)', () => {
  test('a code-mode command whose sandbox failed to start (no CommandExecution item) becomes a shell tool_call with its output', () => {
    const events = unreportedCommands(fixtures.codeModeSandboxFailedToStart);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'tool_call', toolName: 'shell', message: 'echo hello; pwd' });
    expect(events[0]?.payload).toMatchObject({ kind: 'shell', exitCode: 1, status: 'failed', source: 'rollout', input: { command: 'echo hello; pwd' } });
    expect(String(events[0]?.payload.output)).toContain('bwrap: setting up uid map: Operation not permitted');
  });

  test('the same through the classic exec_command function: the exit code is read from "Process exited with code N"', () => {
    const events = unreportedCommands(fixtures.classicToolSandboxFailedToStart);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      toolName: 'shell',
      message: 'echo classic',
      payload: { exitCode: 1, input: { cmd: 'echo classic', command: 'echo classic' } },
    });
    expect(String(events[0]?.payload.output)).toContain('bwrap: setting up uid map');
  });

  test('a call whose arguments codex refused (no process at all) is reported, with no exit code', () => {
    const events = unreportedCommands(fixtures.codeModeArgumentsRefused);
    expect(events).toHaveLength(1);
    expect(events[0]?.payload).toMatchObject({ exitCode: null, status: 'failed' });
    expect(String(events[0]?.payload.output)).toContain('missing field `cmd`');
  });

  test('a command codex did report, while its call was open or after it returned (still running), is not reported again', () => {
    expect(unreportedCommands(fixtures.codeModeCommandRan)).toEqual([]);
    expect(unreportedCommands(fixtures.codeModeCommandStillRunningWhenCallReturned)).toEqual([]);
  });

  test('a code-mode script that runs no command, an unknown record and a call with no output are not commands reported', () => {
    const events = unreportedCommands([
      { type: 'response_item', payload: { type: 'custom_tool_call', call_id: 'c1', name: 'exec', input: 'text("hello")' } },
      { type: 'response_item', payload: { type: 'custom_tool_call_output', call_id: 'c1', output: 'hello' } },
      { type: 'response_item', payload: { type: 'function_call', call_id: 'c2', name: 'exec_command', arguments: '{"cmd":"ls"}' } },
      { type: 'something_new', payload: { type: 'x' } },
      'not a record',
    ]);
    expect(events).toEqual([]);
  });
});

describe('commandInScript', () => {
  test.each([
    ['await tools.exec_command({cmd: "npm test"})', 'npm test'],
    ["const r = await tools.exec_command({ cmd: 'ls -la', yield_time_ms: 100 })", 'ls -la'],
    ['await tools.exec_command({"cmd":"echo \\"hi\\""})', 'echo "hi"'],
    ['await tools.exec_command("git status")', 'git status'],
    ['await tools["exec_command"]({cmd: `make`})', 'make'],
    ['await tools.exec_command({cmd: `echo ${x}`})', null],
    ['const c = "ls"; await tools.exec_command({cmd: c})', null],
  ])('%s → %p', (script, command) => {
    expect(commandInScript(script)).toBe(command);
  });
});

describe('token totals: codex reports the thread totals, a turn counts from the totals before it', () => {
  test('the last token_count of the records is the baseline; the turn is what the totals grew by', () => {
    const baseline = tokenTotalsIn(fixtures.codeModeCommandRan);
    expect(baseline).toEqual({ input_tokens: 20, cached_input_tokens: 0, cache_write_input_tokens: 0, output_tokens: 10, reasoning_output_tokens: 0 });
    const totals = { input_tokens: 50, cached_input_tokens: 4, cache_write_input_tokens: 0, output_tokens: 25, reasoning_output_tokens: 3 };
    expect(turnTokens(totals, baseline)).toEqual({
      input_tokens: 30,
      cached_input_tokens: 4,
      cache_write_input_tokens: 0,
      output_tokens: 15,
      reasoning_output_tokens: 3,
    });
  });

  test('no baseline (a new thread, or a rollout without token counts) and totals that restarted count whole', () => {
    expect(tokenTotalsIn([{ type: 'session_meta', payload: {} }])).toBeNull();
    const totals = { input_tokens: 5, cached_input_tokens: 0, cache_write_input_tokens: 0, output_tokens: 2, reasoning_output_tokens: 0 };
    expect(turnTokens(totals, null)).toEqual(totals);
    expect(turnTokens(totals, { ...totals, input_tokens: 9 })).toEqual(totals);
  });
});

describe('finding and reading a rollout', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'ars-rollout-'));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  test('found by the thread id that ends its name, in any day folder, the newest when several; read from an offset', async () => {
    const id = '01a22092-49d3-79a0-b1ef-76c1d57eb1dc';
    const older = join(home, 'sessions/2026/11/27', `rollout-2026-11-27T10-00-00-${id}.jsonl`);
    const newer = join(home, 'sessions/2026/11/28', `rollout-2026-11-28T10-00-00-${id}.jsonl`);
    await mkdir(join(home, 'sessions/2026/11/27'), { recursive: true });
    await mkdir(join(home, 'sessions/2026/11/28'), { recursive: true });
    await writeFile(join(home, 'sessions/2026/11/28', 'rollout-2026-11-28T09-00-00-other.jsonl'), '{}\n');
    await writeFile(older, '{"n":0}\n');
    await writeFile(newer, '{"n":1}\nnot json\n{"n":2}\n');
    await utimes(older, new Date(1000), new Date(1000));
    expect(await findRollout(home, id)).toBe(newer);
    expect(await findRollout(home, 'no-such-thread')).toBeNull();
    expect(await findRollout(join(home, 'nowhere'), id)).toBeNull();
    expect(await readRolloutRecords(newer, 0)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(await readRolloutRecords(newer, '{"n":1}\n'.length)).toEqual([{ n: 2 }]);
    expect(await readRolloutRecords(newer, 0, '{"n":1}\n'.length)).toEqual([{ n: 1 }]);
  });
});
