// The bundled Claude Code CLI (2.1.330), spawned directly in the agent SDK's stream-json mode,
// against the model stand-in: every directive comes out as Claude Code's own messages.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fakeUsage, findingsMessage, parseDirectives, recallAnswer } from '@ars/harness-stand-ins';
import { CLOSING_MESSAGE } from './script.js';
import { startModelStandIn } from './server.js';
import { claudeBlocks, claudeResult, claudeToolResults, runClaude, standInSuite, type CliRun } from './testing.js';

const { standIn, workspace } = standInSuite();

const texts = (run: CliRun): string[] => claudeBlocks(run, 'text').map((block) => String(block.text));
const sessionOf = (run: CliRun): string => String(claudeResult(run)?.session_id);

describe('Claude Code (stream-json, as the agent SDK drives it)', () => {
  test.concurrent('each @say is its own text block, in order; the result’s usage is the stand-ins’ rule', async () => {
    const prompt = '@say first\n@say second';
    const run = await runClaude(standIn().url, await workspace(), prompt);
    expect(run.exitCode).toBe(0);
    expect(texts(run)).toEqual(['first', 'second']);
    const result = claudeResult(run);
    expect(result).toMatchObject({ subtype: 'success', is_error: false, result: 'second' });
    const usage = fakeUsage(prompt, parseDirectives(prompt));
    expect(result?.usage).toMatchObject({ input_tokens: usage.input, output_tokens: usage.output, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
  });

  test.concurrent('no directive: one message, an ls through Bash, success', async () => {
    const run = await runClaude(standIn().url, await workspace(), 'Please look around.');
    expect(claudeResult(run)).toMatchObject({ subtype: 'success', is_error: false });
    // The script ends with the ls: Claude Code wants a last word, so the stand-in closes the turn with one.
    expect(texts(run)).toEqual(['Looking at the working tree.', CLOSING_MESSAGE]);
    expect(claudeBlocks(run, 'tool_use').map((use) => use.input)).toEqual([expect.objectContaining({ command: 'ls' })]);
    expect(String(claudeToolResults(run)[0]?.content)).toContain('README.md');
  });

  test.concurrent('@shell: Claude Code runs it with Bash and gives the output back, "Exit code N" first on failure', async () => {
    const run = await runClaude(standIn().url, await workspace(), '@say running\n@shell echo from-the-shell; exit 3\n@say after');
    expect(claudeResult(run)).toMatchObject({ subtype: 'success', is_error: false });
    expect(claudeBlocks(run, 'tool_use')).toEqual([
      expect.objectContaining({ name: 'Bash', input: expect.objectContaining({ command: 'echo from-the-shell; exit 3' }) }),
    ]);
    expect(claudeToolResults(run)).toEqual([expect.objectContaining({ content: 'Exit code 3\nfrom-the-shell', is_error: true })]);
    expect(texts(run)).toEqual(['running', 'after']);
  });

  test.concurrent('@write goes through the Write tool with an absolute path: the file really written, new or replaced', async () => {
    const space = await workspace();
    const run = await runClaude(standIn().url, space, '@write notes/a.txt line one\\nline two\n@write README.md replaced');
    expect(claudeResult(run)).toMatchObject({ subtype: 'success', is_error: false, result: CLOSING_MESSAGE });
    expect(claudeBlocks(run, 'tool_use').map((use) => [use.name, (use.input as Record<string, unknown>).file_path])).toEqual([
      ['Write', join(space.tree, 'notes/a.txt')],
      ['Write', join(space.tree, 'README.md')],
    ]);
    expect(claudeToolResults(run).map((result) => result.is_error ?? false)).toEqual([false, false]);
    expect(await readFile(join(space.tree, 'notes/a.txt'), 'utf8')).toBe('line one\nline two');
    expect(await readFile(join(space.tree, 'README.md'), 'utf8')).toBe('replaced');
  });

  test.concurrent('@fail: the message before it, then an API error Claude Code reports without retrying; later steps never run', async () => {
    const requests: string[] = [];
    const own = await startModelStandIn({ log: (line) => requests.push(line) });
    const run = await runClaude(own.url, await workspace(), '@say trying\n@fail the tests are red\n@say never').finally(() => own.close());
    expect(requests).toEqual([expect.stringMatching(/^POST \/v1\/messages\?beta=true 200 /)]);
    const result = claudeResult(run);
    // Claude Code ends such a turn with a `success` result that is an error (what the adapter maps to failed).
    expect(result).toMatchObject({ is_error: true });
    expect(String(result?.result)).toContain('the tests are red');
    expect(texts(run)).toEqual(['trying', expect.stringContaining('the tests are red')]);
    expect(texts(run).join('\n')).not.toContain('never');
  });

  test.concurrent('@sleep holds the answer: the text before it arrives at once, and Claude Code killed meanwhile ends the turn', async () => {
    // No clock: had the stand-in held 'before' until the sleep's end, 'after' would have come with it
    // before the kill (300 ms after the first assistant line); had the kill not ended the turn, a
    // result would follow. (A bound on the elapsed time failed a loaded CI run: 21 s against 20.)
    const run = await runClaude(standIn().url, await workspace(), '@say before\n@sleep 30000\n@say after', {
      onLine: (line, kill) => {
        if (line.type === 'assistant') setTimeout(kill, 300);
      },
    });
    expect(texts(run)).toEqual(['before']);
    expect(claudeResult(run)).toBeUndefined();
    expect((await fetch(`${standIn().url}/healthz`)).status).toBe(200);
  });

  test.concurrent('@model answers the model the request named: the default, or --model’s', async () => {
    const [plain, named] = await Promise.all([
      runClaude(standIn().url, await workspace(), '@model'),
      runClaude(standIn().url, await workspace(), '@model', { model: 'claude-stand-in-test' }),
    ]);
    expect(texts(plain)).toEqual(['model claude-opus-5-5']);
    expect(texts(named)).toEqual(['model claude-stand-in-test']);
  });

  test.concurrent('@recall on a resumed session lists the earlier prompts from the history Claude Code sends; on a new session, none', async () => {
    const space = await workspace();
    const first = await runClaude(standIn().url, space, '@say one\nwith a second line');
    const second = await runClaude(standIn().url, space, '@say two', { resume: sessionOf(first) });
    const third = await runClaude(standIn().url, space, '@recall', { resume: sessionOf(first) });
    expect(sessionOf(third)).toBe(sessionOf(first));
    for (const run of [first, second, third]) expect(claudeResult(run)).toMatchObject({ subtype: 'success', is_error: false });
    expect(texts(third)).toEqual([recallAnswer(['@say one\nwith a second line', '@say two'])]);
    const fresh = await runClaude(standIn().url, space, '@recall');
    expect(texts(fresh)).toEqual(['no earlier prompts']);
  });

  test.concurrent('@tool calls the tool of an MCP server handed to Claude Code (a deferred tool, called by its name)', async () => {
    const run = await runClaude(standIn().url, await workspace(), '@tool search {"q":"x","n":[1,2]}\n@say after', { mcpTools: ['search'] });
    expect(claudeResult(run)).toMatchObject({ subtype: 'success', is_error: false });
    expect(claudeBlocks(run, 'tool_use')).toEqual([expect.objectContaining({ name: 'mcp__standin__search', input: { q: 'x', n: [1, 2] } })]);
    expect(claudeToolResults(run)).toEqual([expect.not.objectContaining({ is_error: true })]);
    expect(texts(run)).toEqual(['after']);
  });

  test.concurrent('@tool without such a tool: called by its bare name, Claude Code answers with its error', async () => {
    const run = await runClaude(standIn().url, await workspace(), '@tool search {"q":"x"}\n@say after');
    expect(claudeBlocks(run, 'tool_use')).toEqual([expect.objectContaining({ name: 'search', input: { q: 'x' } })]);
    expect(claudeToolResults(run)).toEqual([expect.objectContaining({ is_error: true, content: expect.stringContaining('No such tool available: search') })]);
    expect(texts(run)).toEqual(['after']);
  });

  test.concurrent('@finding: Claude Code greps the tree for the model; the last message (the result) carries the findings block', async () => {
    const space = await workspace({ 'app.js': 'const a = 1;\n  run(req.body.id);\n' });
    const prompt = '@finding app.js "run(req" high Unchecked input.\n@finding gone.js x low Nothing.\n@finding app.js absent info Nope.';
    const run = await runClaude(standIn().url, space, prompt);
    const block = findingsMessage([{ path: 'app.js', line: 2, severity: 'high', message: 'Unchecked input.', anchor: 'run(req.body.id);' }]);
    expect(texts(run)).toEqual([
      '@finding: gone.js is not in the working tree; no finding',
      '@finding: no line of app.js contains "absent"; no finding',
      block,
    ]);
    expect(claudeResult(run)).toMatchObject({ subtype: 'success', is_error: false, result: block });
  });
});
