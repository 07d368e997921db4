import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { usageOfReport } from '../domain/runUsage.js';
import type { HarnessName } from '@ars/harnesses';
import { fakeUsage, findingsMessage, parseDirectives } from '@ars/harness-stand-ins';
import { assertStandInsBuilt, makeWorkTree, record, type WorkTree } from './testing.js';

const HARNESSES: HarnessName[] = ['codex', 'claude-code'];
const SHELL_TOOL: Record<HarnessName, string> = { codex: 'shell', 'claude-code': 'Bash' };

beforeAll(() => assertStandInsBuilt());

describe.each(HARNESSES)('%s adapter against its stand-in', (harness) => {
  let tree: WorkTree;
  beforeEach(async () => {
    tree = await makeWorkTree();
  });
  afterEach(async () => {
    await tree.cleanup();
  });

  test('a prompt without directives gives stream_started first, a message, an ls tool call, success', async () => {
    const { result, events } = await record(harness, 'Please look around.', tree.dir);
    expect(result).toMatchObject({ status: 'success' });
    expect(result.error).toBeUndefined();
    expect(events[0]).toEqual({ type: 'stream_started', toolName: null, message: expect.any(String), payload: {} });
    expect(events.filter((e) => e.type === 'stream_started')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'assistant_message')).toHaveLength(1);
    const tools = events.filter((e) => e.type === 'tool_call');
    expect(tools).toHaveLength(1);
    expect(tools[0]?.toolName).toBe(SHELL_TOOL[harness]);
    expect(tools[0]?.payload).toMatchObject({ kind: 'shell', input: { command: 'ls' }, exitCode: 0 });
    expect(String(tools[0]?.payload.output)).toContain('README.md');
    expect(events.at(-1)).toMatchObject({ type: 'completed', message: 'success' });
    const usage = events.find((e) => e.type === 'usage');
    expect(usage?.payload.inputTokens).toBeGreaterThan(0);
    expect(result.usage?.outputTokens).toBeGreaterThan(0);
    if (harness === 'claude-code') expect(result.usage?.costUsd).toBeGreaterThan(0);
  });

  test('@tool gives a tool_call with exactly that toolName and the JSON object as its input', async () => {
    const { result, events } = await record(harness, 'Find it.\n@tool search {"q":"x"}', tree.dir);
    expect(result).toMatchObject({ status: 'success' });
    const tools = events.filter((e) => e.type === 'tool_call');
    expect(tools).toHaveLength(1);
    expect(tools[0]?.toolName).toBe('search');
    expect(tools[0]?.payload.input).toEqual({ q: 'x' });
  });

  test('@shell runs the command in the working tree and reports exit code and output', async () => {
    const { result, events } = await record(harness, '@shell echo hi\n@shell pwd; exit 3', tree.dir);
    expect(result).toMatchObject({ status: 'success' });
    const tools = events.filter((e) => e.type === 'tool_call');
    expect(tools.map((t) => t.toolName)).toEqual([SHELL_TOOL[harness], SHELL_TOOL[harness]]);
    expect(tools[0]?.payload).toMatchObject({ input: { command: 'echo hi' }, exitCode: 0, output: 'hi\n' });
    expect(tools[1]?.payload).toMatchObject({ exitCode: 3, output: `${tree.dir}\n` });
  });

  test('@write writes the file in the working tree and reports a file change', async () => {
    const { result, events } = await record(harness, '@write notes.txt hello\\nworld\n@write notes.txt again', tree.dir);
    expect(result).toMatchObject({ status: 'success' });
    expect(await readFile(join(tree.dir, 'notes.txt'), 'utf8')).toBe('again');
    const changes = events.filter((e) => e.type === 'file_change');
    expect(changes.map((c) => c.payload)).toEqual([{ changes: [{ path: 'notes.txt', kind: 'add' }] }, { changes: [{ path: 'notes.txt', kind: 'update' }] }]);
    const tools = events.filter((e) => e.type === 'tool_call');
    expect(tools).toHaveLength(2);
    expect(tools[0]?.payload.kind).toBe('file_edit');
  });

  test('@say gives assistant messages in order, with \\n as a newline; unknown directives are text', async () => {
    const { result, events } = await record(harness, '@say one\\ntwo\n@frobnicate x\n@say three', tree.dir);
    expect(result).toMatchObject({ status: 'success' });
    expect(events.filter((e) => e.type === 'assistant_message').map((e) => e.message)).toEqual(['one\ntwo', 'three']);
    expect(events.filter((e) => e.type === 'tool_call')).toHaveLength(0);
  });

  test('events keep the order of the directives', async () => {
    const { events } = await record(harness, '@say a\n@tool t1 {}\n@shell true\n@write f.txt x\n@say b', tree.dir);
    const kinds = events.map((e) => (e.type === 'tool_call' ? `tool:${e.payload.kind as string}` : e.type));
    expect(kinds).toEqual([
      'stream_started',
      'assistant_message',
      `tool:${harness === 'codex' ? 'mcp' : 'tool'}`,
      'tool:shell',
      'tool:file_edit',
      'file_change',
      'assistant_message',
      'usage',
      'completed',
    ]);
  });

  test('@model answers with the model passed through the SDK (codex --model, Claude Code model option), (default) without one', async () => {
    const given = await record(harness, '@model', tree.dir, { model: 'model-under-test' });
    expect(given.result).toMatchObject({ status: 'success' });
    expect(given.events.filter((e) => e.type === 'assistant_message').map((e) => e.message)).toEqual(['model model-under-test']);
    const none = await record(harness, '@model', tree.dir);
    expect(none.events.filter((e) => e.type === 'assistant_message').map((e) => e.message)).toEqual(['model (default)']);
  });

  test('@finding: the last agent message carries every finding located in the working tree, in the findings format', async () => {
    await writeFile(join(tree.dir, 'app.js'), 'const a = 1;\nrun(req.body.id);\n');
    const prompt = '@say reviewing\n@finding app.js "run(req" high Unchecked input.\n@finding app.js nowhere low Never found.\n@finding gone.js x info Gone.';
    const first = await record(harness, prompt, tree.dir);
    expect(first.result).toMatchObject({ status: 'success' });
    const finding = { path: 'app.js', line: 2, severity: 'high', message: 'Unchecked input.', anchor: 'run(req.body.id);' } as const;
    expect(first.events.filter((e) => e.type === 'assistant_message').map((e) => e.message)).toEqual([
      'reviewing',
      '@finding: no line of app.js contains "nowhere"; no finding',
      '@finding: gone.js is not in the working tree; no finding',
      findingsMessage([finding]),
    ]);
    // Lines inserted above: the same directive finds the code where it is now.
    await writeFile(join(tree.dir, 'app.js'), '// new header\n\nconst a = 1;\nrun(req.body.id);\n');
    const shifted = await record(harness, '@finding app.js "run(req" high Unchecked input.', tree.dir);
    expect(shifted.events.filter((e) => e.type === 'assistant_message').map((e) => e.message)).toEqual([findingsMessage([{ ...finding, line: 4 }])]);
  });

  test('the run usage of the stand-in is its deterministic report, read through the real wire format', async () => {
    const prompt = '@say one\n@shell true';
    const { result, events } = await record(harness, prompt, tree.dir);
    expect(result).toMatchObject({ status: 'success' });
    const reports = events.filter((e) => e.type === 'usage');
    expect(reports).toHaveLength(1);
    const expected = fakeUsage(prompt, parseDirectives(prompt));
    expect(usageOfReport(harness, reports[0]?.payload ?? {})).toEqual({ inputTokens: expected.input, cachedInputTokens: 0, outputTokens: expected.output });
  });
});
