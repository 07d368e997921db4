// The bundled Codex CLI (codex-cli 0.163.0), spawned directly, against the model stand-in: every
// directive comes out as codex's own JSONL items. Its default model runs code mode (the `exec`
// tool); `--model` with a model codex has no metadata for runs its classic function tools.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fakeUsage, findingsMessage, parseDirectives, recallAnswer } from '@ars/harness-stand-ins';
import { startModelStandIn } from './server.js';
import { codexItems, runCodex, standInSuite, type CliRun } from './testing.js';

const { standIn, workspace } = standInSuite();

const messages = (run: CliRun): string[] => codexItems(run, 'agent_message').map((item) => String(item.text));
const threadOf = (run: CliRun): string => String(run.lines.find((line) => line.type === 'thread.started')?.thread_id);
const turnCompleted = (run: CliRun): Record<string, unknown> | undefined => run.lines.find((line) => line.type === 'turn.completed');

describe('codex (code mode, its default model)', () => {
  test.concurrent('each @say is its own agent_message, in order; usage is the stand-ins’ rule', async () => {
    const prompt = '@say first\n@say second';
    const run = await runCodex(standIn().openaiBaseUrl, await workspace(), prompt);
    expect(run.exitCode).toBe(0);
    expect(messages(run)).toEqual(['first', 'second']);
    const usage = fakeUsage(prompt, parseDirectives(prompt));
    // One model request for the turn: its usage is the turn's.
    expect(turnCompleted(run)?.usage).toEqual({
      input_tokens: usage.input,
      cached_input_tokens: 0,
      cache_write_input_tokens: 0,
      output_tokens: usage.output,
      reasoning_output_tokens: 0,
    });
  });

  test.concurrent('no directive: one message, an ls, success', async () => {
    const run = await runCodex(standIn().openaiBaseUrl, await workspace(), 'Please look around.');
    expect(run.exitCode).toBe(0);
    expect(messages(run)).toEqual(['Looking at the working tree.']);
    const [ls] = codexItems(run, 'command_execution');
    expect(ls).toMatchObject({ exit_code: 0, status: 'completed' });
    expect(String(ls?.command)).toContain('ls');
    expect(String(ls?.aggregated_output)).toContain('README.md');
  });

  test.concurrent('@shell: codex runs the command and reports its output and exit code; usage adds up per request', async () => {
    const prompt = '@say running\n@shell echo from-the-shell; exit 3\n@say after';
    const run = await runCodex(standIn().openaiBaseUrl, await workspace(), prompt);
    expect(run.exitCode).toBe(0);
    const [command] = codexItems(run, 'command_execution');
    expect(command).toMatchObject({ aggregated_output: 'from-the-shell\n', exit_code: 3, status: 'failed' });
    expect(String(command?.command)).toContain('echo from-the-shell; exit 3');
    expect(messages(run)).toEqual(['running', 'after']);
    // Two requests: [say, shell] then [say]; each reports the whole prompt as its input, as the APIs bill.
    const [first, second] = [parseDirectives(prompt).slice(0, 2), parseDirectives(prompt).slice(2)];
    const usage = turnCompleted(run)?.usage as Record<string, number>;
    expect(usage.input_tokens).toBe(fakeUsage(prompt, first).input + fakeUsage(prompt, second).input);
    expect(usage.output_tokens).toBe(fakeUsage(prompt, first).output + fakeUsage(prompt, second).output);
  });

  test.concurrent('@write goes through apply_patch: a file_change, the file really written (apply_patch ends it with a newline)', async () => {
    const space = await workspace();
    const run = await runCodex(standIn().openaiBaseUrl, space, '@write notes/a.txt line one\\nline two\n@write README.md replaced');
    expect(run.exitCode).toBe(0);
    const changes = codexItems(run, 'file_change');
    expect(changes.map((change) => change.status)).toEqual(['completed', 'completed']);
    expect(changes[0]?.changes).toEqual([{ path: join(space.tree, 'notes/a.txt'), kind: 'add' }]);
    expect(await readFile(join(space.tree, 'notes/a.txt'), 'utf8')).toBe('line one\nline two\n');
    expect(await readFile(join(space.tree, 'README.md'), 'utf8')).toBe('replaced\n');
  });

  test.concurrent('@write outside the working tree is refused by the model: nothing asked of codex', async () => {
    const run = await runCodex(standIn().openaiBaseUrl, await workspace(), '@write ../escape.txt no');
    expect(run.exitCode).toBe(0);
    expect(codexItems(run, 'file_change')).toEqual([]);
    expect(messages(run)).toEqual(['@write: refused to write outside the working tree: ../escape.txt']);
  });

  test.concurrent('@fail after a message: the message, then codex’s error and turn.failed with the message, exit 1; later steps never run', async () => {
    const run = await runCodex(standIn().openaiBaseUrl, await workspace(), '@say trying\n@fail the tests are red\n@say never');
    expect(run.exitCode).toBe(1);
    expect(messages(run)).toEqual(['trying']);
    expect(run.lines.find((line) => line.type === 'turn.failed')).toEqual({ type: 'turn.failed', error: { message: 'the tests are red' } });
    // Not retried: one failure, no "Reconnecting".
    expect(run.lines.filter((line) => line.type === 'error').map((line) => line.message)).toEqual(['the tests are red']);
  });

  test.concurrent('@fail first: an HTTP 400 codex reports at once with the message, asked once (not retried)', async () => {
    const requests: string[] = [];
    const own = await startModelStandIn({ log: (line) => requests.push(line) });
    try {
      const run = await runCodex(own.openaiBaseUrl, await workspace(), '@fail broken from the start');
      expect(run.exitCode).toBe(1);
      const failed = run.lines.find((line) => line.type === 'turn.failed') as { error: { message: string } } | undefined;
      expect(failed?.error.message).toContain('broken from the start');
      expect(run.lines.filter((line) => line.type === 'error')).toHaveLength(1);
      expect(requests).toEqual([expect.stringMatching(/^POST \/v1\/responses 400 /)]);
    } finally {
      await own.close();
    }
  });

  test.concurrent('@model answers the model the request named: the default, or --model’s (classic tools then)', async () => {
    const [plain, named] = await Promise.all([
      runCodex(standIn().openaiBaseUrl, await workspace(), '@model'),
      runCodex(standIn().openaiBaseUrl, await workspace(), '@model', { model: 'gpt-stand-in-test' }),
    ]);
    expect(messages(plain)).toEqual(['model gpt-6.1-sol']);
    expect(messages(named)).toEqual(['model gpt-stand-in-test']);
  });

  test.concurrent('@recall on a resumed thread lists the earlier prompts from the history codex sends; on a new thread, none', async () => {
    const space = await workspace();
    const first = await runCodex(standIn().openaiBaseUrl, space, '@say one\nwith a second line');
    const second = await runCodex(standIn().openaiBaseUrl, space, '@say two', { resume: threadOf(first) });
    const third = await runCodex(standIn().openaiBaseUrl, space, '@recall', { resume: threadOf(first) });
    expect(threadOf(third)).toBe(threadOf(first));
    expect([first.exitCode, second.exitCode, third.exitCode]).toEqual([0, 0, 0]);
    expect(messages(third)).toEqual([recallAnswer(['@say one\nwith a second line', '@say two'])]);
    expect(messages(third)).toEqual(['@say one\\nwith a second line\n@say two']);
    const fresh = await runCodex(standIn().openaiBaseUrl, space, '@recall');
    expect(messages(fresh)).toEqual(['no earlier prompts']);
  });

  test.concurrent('@finding: codex greps the tree for the model; the last message carries the findings block', async () => {
    const space = await workspace({ 'app.js': 'const a = 1;\n  run(req.body.id);\n' });
    const prompt = '@finding app.js "run(req" high Unchecked input.\n@finding gone.js x low Nothing.\n@finding app.js absent info Nope.';
    const run = await runCodex(standIn().openaiBaseUrl, space, prompt);
    expect(run.exitCode).toBe(0);
    expect(messages(run)).toEqual([
      '@finding: gone.js is not in the working tree; no finding',
      '@finding: no line of app.js contains "absent"; no finding',
      findingsMessage([{ path: 'app.js', line: 2, severity: 'high', message: 'Unchecked input.', anchor: 'run(req.body.id);' }]),
    ]);
  });

  test.concurrent('@sleep holds the answer: the message before it arrives at once, and killing codex meanwhile ends the turn', async () => {
    // No clock: had the stand-in held 'before' until the sleep's end, 'after' would have come with it
    // before the kill (300 ms after the first message), and a turn the kill did not end would have
    // gone on to 'after'. (Bounds on the elapsed time fail on a loaded machine.)
    const run = await runCodex(standIn().openaiBaseUrl, await workspace(), '@say before\n@sleep 30000\n@say after', {
      onLine: (line, kill) => {
        if (line.type === 'item.completed' && (line.item as Record<string, unknown>).type === 'agent_message') setTimeout(kill, 300);
      },
    });
    expect(messages(run)).toEqual(['before']);
    // The stand-in serves the next request at once: the sleeping answer holds nothing.
    expect((await fetch(`${standIn().url}/healthz`)).status).toBe(200);
  });
});

describe('codex: @tool calls a tool of an MCP server handed to codex', () => {
  test.concurrent.each([
    ['code mode', undefined],
    ['classic tools', 'gpt-stand-in-test'],
  ])('%s: an mcp_tool_call of exactly that tool, with the JSON as its arguments', async (_mode, model) => {
    const run = await runCodex(standIn().openaiBaseUrl, await workspace(), '@tool search {"q":"x","n":[1,2]}\n@say after', {
      mcpTools: ['search'],
      ...(model ? { model } : {}),
    });
    expect(run.exitCode).toBe(0);
    expect(codexItems(run, 'mcp_tool_call')).toEqual([
      expect.objectContaining({
        server: 'standin',
        tool: 'search',
        arguments: { q: 'x', n: [1, 2] },
        status: 'completed',
        result: expect.objectContaining({ content: [{ type: 'text', text: 'stand-in tool search called' }] }),
      }),
    ]);
    expect(messages(run)).toEqual(['after']);
  });

  // Codex leaves a tool server that is not ready within its optional start-up grace (1 s) out of the
  // turn's tools, silently; @ars/harnesses sets `mcp_optional_startup_grace_ms` to the servers'
  // start-up timeout (CODEX_TOOL_SERVER_STARTUP_GRACE_MS, 60 s) for that reason, as runCodex does.
  test.concurrent('a tool server ready only after 2 s: left out of the turn by codex’s own 1 s grace, offered and called with a grace of 60 s', async () => {
    const slow = { mcpTools: ['search'], mcpToolServerStartDelayMs: 2_000 };
    const [without, withGrace] = await Promise.all([
      runCodex(standIn().openaiBaseUrl, await workspace(), '@tool search {"q":"x"}\n@say after', {
        ...slow,
        codexConfig: { mcp_optional_startup_grace_ms: '1000' },
      }),
      runCodex(standIn().openaiBaseUrl, await workspace(), '@tool search {"q":"x"}\n@say after', slow),
    ]);
    expect(without.exitCode).toBe(0);
    expect(codexItems(without, 'mcp_tool_call')).toEqual([]);
    expect(withGrace.exitCode).toBe(0);
    expect(codexItems(withGrace, 'mcp_tool_call')).toEqual([expect.objectContaining({ server: 'standin', tool: 'search', status: 'completed' })]);
    expect(messages(withGrace)).toEqual(['after']);
  });

  test.concurrent('no such tool offered: codex refuses the call and reports no item (the turn goes on)', async () => {
    const run = await runCodex(standIn().openaiBaseUrl, await workspace(), '@tool search {"q":"x"}\n@say after');
    expect(run.exitCode).toBe(0);
    expect(codexItems(run, 'mcp_tool_call')).toEqual([]);
    expect(messages(run)).toEqual(['after']);
  });
});

describe('codex (classic function tools: --model without codex metadata)', () => {
  test.concurrent('@shell through exec_command, @write through apply_patch in a command (codex intercepts it), in order', async () => {
    const space = await workspace();
    const run = await runCodex(standIn().openaiBaseUrl, space, '@say classic\n@shell echo via-function\n@write c.txt classic file', {
      model: 'gpt-stand-in-test',
    });
    expect(run.exitCode).toBe(0);
    expect(messages(run)).toEqual(['classic']);
    expect(codexItems(run, 'command_execution')[0]).toMatchObject({ aggregated_output: 'via-function\n', exit_code: 0 });
    expect(codexItems(run, 'file_change')[0]).toMatchObject({ changes: [{ path: join(space.tree, 'c.txt'), kind: 'add' }], status: 'completed' });
    expect(await readFile(join(space.tree, 'c.txt'), 'utf8')).toBe('classic file\n');
  });
});
