// The stream mappers on their own, fed the JSON the real CLIs print (including what the stand-ins
// never print: retries, unknown types).
import type { HarnessEvent } from './adapter.js';
import { ClaudeStreamMapper, mcpToolOf } from './claudeCode.js';
import { agentCommand, flushCodexState, flushUnfinishedCommands, mapCodexEvent, newTurnState } from './codex.js';

function mapCodex(lines: unknown[], cwd = '/w', state = newTurnState()): { events: HarnessEvent[]; state: ReturnType<typeof newTurnState> } {
  const events: HarnessEvent[] = [];
  for (const line of lines) {
    const mapped = mapCodexEvent(line, cwd, state);
    if (mapped !== 'start') events.push(...mapped);
  }
  events.push(...flushCodexState(state));
  return { events, state };
}

describe('codex stream mapping', () => {
  test('retry errors the real CLI prints ("Reconnecting...") are non-fatal events; turn.completed still means success', () => {
    const { events, state } = mapCodex([
      { type: 'thread.started', thread_id: 't' },
      { type: 'turn.started' },
      { type: 'error', message: 'Reconnecting... 2/5 (stream disconnected before completion)' },
      { type: 'item.completed', item: { id: 'i0', type: 'agent_message', text: 'done' } },
      { type: 'turn.completed', usage: { input_tokens: 5, cached_input_tokens: 1, output_tokens: 2 } },
    ]);
    expect(events.map((e) => [e.type, e.payload.fatal])).toEqual([
      ['error', false],
      ['assistant_message', undefined],
      ['usage', undefined],
    ]);
    expect(state.completed).toBe(true);
    expect(state.failure).toBeNull();
    expect(state.usage).toEqual({ inputTokens: 5, outputTokens: 2, cachedInputTokens: 1, reasoningOutputTokens: 0, costUsd: null });
  });

  test('an error followed by turn.failed with the same message is one fatal error event', () => {
    const { events, state } = mapCodex([
      { type: 'thread.started', thread_id: 't' },
      { type: 'error', message: 'quota exceeded' },
      { type: 'turn.failed', error: { message: 'quota exceeded' } },
    ]);
    expect(events).toEqual([{ type: 'error', toolName: null, message: 'quota exceeded', payload: { fatal: true, source: 'turn.failed' } }]);
    expect(state.failure).toBe('quota exceeded');
  });

  test('unknown events, unknown items and in-progress items are ignored; known items map', () => {
    const { events } = mapCodex([
      { type: 'thread.started', thread_id: 't' },
      { type: 'turn.plan_updated', plan: [] },
      'not even an object',
      { type: 'item.started', item: { id: 'a', type: 'command_execution', command: 'ls', aggregated_output: '', status: 'in_progress' } },
      { type: 'item.completed', item: { id: 'b', type: 'collab_agent_call', whatever: 1 } },
      { type: 'item.completed', item: { id: 'c', type: 'todo_list', items: [] } },
      { type: 'item.completed', item: { id: 'd', type: 'reasoning', text: 'thinking' } },
      { type: 'item.completed', item: { id: 'e', type: 'web_search', query: 'node 20' } },
      {
        type: 'item.completed',
        item: {
          id: 'f',
          type: 'file_change',
          changes: [
            { path: '/w/src/a.ts', kind: 'update' },
            { path: '/elsewhere/b', kind: 'delete' },
          ],
          status: 'completed',
        },
      },
      {
        type: 'item.completed',
        item: { id: 'g', type: 'mcp_tool_call', server: 's', tool: 'lookup', arguments: { id: 1 }, error: { message: 'nope' }, status: 'failed' },
      },
      { type: 'item.completed', item: { id: 'h', type: 'error', message: 'minor' } },
    ]);
    expect(events.map((e) => [e.type, e.toolName])).toEqual([
      ['reasoning', null],
      ['tool_call', 'web_search'],
      ['tool_call', 'apply_patch'],
      ['file_change', null],
      ['tool_call', 'lookup'],
      ['error', null],
    ]);
    expect(events[3]?.payload).toEqual({
      changes: [
        { path: 'src/a.ts', kind: 'update' },
        { path: '/elsewhere/b', kind: 'delete' },
      ],
    });
    expect(events[4]?.payload).toMatchObject({ kind: 'mcp', server: 's', input: { id: 1 }, error: 'nope', status: 'failed' });
    expect(events[5]?.payload.fatal).toBe(false);
  });
});

describe('codex with the real CLI: provider failures, usage of resumed threads, commands cut off', () => {
  test('a provider that cannot be reached: the retries are non-fatal, the failure names the provider', () => {
    const { events, state } = mapCodex(
      [
        { type: 'thread.started', thread_id: 't' },
        { type: 'turn.started' },
        { type: 'error', message: 'Reconnecting... 1/4 (Connection failed: error sending request)' },
        { type: 'error', message: 'Connection failed: error sending request' },
        { type: 'turn.failed', error: { message: 'Connection failed: error sending request' } },
      ],
      '/w',
      newTurnState({ providerUrl: 'http://127.0.0.1:4319/v1' }),
    );
    const message = 'codex could not reach the model provider at http://127.0.0.1:4319/v1: Connection failed: error sending request';
    expect(events.map((e) => [e.message, e.payload.fatal])).toEqual([
      ['Reconnecting... 1/4 (Connection failed: error sending request)', false],
      [message, true],
    ]);
    expect(state.failure).toBe(message);
  });

  test("other failures keep codex's words (a stream cut off mid-answer did reach the provider)", () => {
    for (const message of ['unexpected status 401 Unauthorized', 'stream disconnected before completion: connection reset']) {
      const { state } = mapCodex([{ type: 'turn.failed', error: { message } }], '/w', newTurnState({ providerUrl: 'https://api.openai.com/v1' }));
      expect(state.failure).toBe(message);
    }
  });

  test("turn.completed carries the thread's totals: a resumed turn's usage is what they grew by", () => {
    const baseline = { input_tokens: 100, cached_input_tokens: 10, cache_write_input_tokens: 0, output_tokens: 50, reasoning_output_tokens: 5 };
    const { events, state } = mapCodex(
      [
        { type: 'thread.started', thread_id: 't' },
        {
          type: 'turn.completed',
          usage: { input_tokens: 130, cached_input_tokens: 10, cache_write_input_tokens: 2, output_tokens: 60, reasoning_output_tokens: 5 },
        },
      ],
      '/w',
      newTurnState({ usageBaseline: baseline }),
    );
    expect(state.usage).toEqual({ inputTokens: 30, outputTokens: 10, cachedInputTokens: 0, reasoningOutputTokens: 0, costUsd: null });
    expect(events[0]?.payload).toMatchObject({ inputTokens: 30, cacheWriteInputTokens: 2 });
  });

  test('a command started and never completed on the stream (killed at the turn end) is reported unfinished', () => {
    const state = newTurnState();
    const started = {
      id: 'item_0',
      type: 'command_execution',
      command: "/bin/bash -lc 'sleep 30'",
      aggregated_output: '',
      exit_code: null,
      status: 'in_progress',
    };
    const done = { id: 'item_1', type: 'command_execution', command: 'true', aggregated_output: '', exit_code: 0, status: 'completed' };
    mapCodex(
      [
        { type: 'item.started', item: started },
        { type: 'item.updated', item: { ...started, aggregated_output: 'partial' } },
        { type: 'item.started', item: done },
        { type: 'item.completed', item: done },
      ],
      '/w',
      state,
    );
    expect(flushUnfinishedCommands(state)).toEqual([
      {
        type: 'tool_call',
        toolName: 'shell',
        message: 'sleep 30',
        payload: { kind: 'shell', input: { command: 'sleep 30' }, exitCode: null, output: 'partial', status: 'unfinished' },
      },
    ]);
    expect(flushUnfinishedCommands(state)).toEqual([]);
  });
});

describe("codex's shell line is reported as the command the agent asked for", () => {
  test.each([
    ["/bin/bash -lc 'echo real-$((6*7)) && cat README.md'", 'echo real-$((6*7)) && cat README.md'],
    ['bash -lc ls', 'ls'],
    [`/bin/bash -lc 'echo '"'"'quoted'"'"''`, "echo 'quoted'"],
    ['/bin/bash -lc "grep -n \\"x\\" a.txt"', 'grep -n "x" a.txt'],
    ['/usr/bin/zsh -c pwd', 'pwd'],
  ])('%s → %s', (reported, command) => {
    expect(agentCommand(reported)).toBe(command);
  });
  test.each([['ls -la'], ['/bin/bash -lc ls extra'], ['/bin/bash -lc "$(whoami)"'], ["/bin/bash -lc 'unterminated"], ['python -c print(1)']])(
    'anything else is kept as it is: %s',
    (reported) => {
      expect(agentCommand(reported)).toBe(reported);
    },
  );
});

describe("Claude Code's MCP tools are reported by their own name and their server's", () => {
  test('mcp__<server>__<tool> splits at the first separator; its own tools are not MCP tools', () => {
    expect(mcpToolOf('mcp__standin__search')).toEqual({ server: 'standin', tool: 'search' });
    expect(mcpToolOf('mcp__docs__find__all')).toEqual({ server: 'docs', tool: 'find__all' });
    expect(mcpToolOf('Bash')).toBeNull();
    expect(mcpToolOf('mcp__nothing')).toBeNull();
  });
});

describe('claude-code stream mapping', () => {
  const base = { parent_tool_use_id: null, session_id: 's', uuid: 'u' };

  test('unknown message types and blocks are ignored; a tool call waits for its result', () => {
    const mapper = new ClaudeStreamMapper('/w');
    const out: HarnessEvent[] = [];
    const feed = (m: unknown): void => {
      out.push(...mapper.map(m));
    };
    feed({ type: 'system', subtype: 'init', model: 'm', ...base });
    feed({ type: 'system', subtype: 'hook_started', ...base });
    feed({ type: 'stream_event', event: {}, ...base });
    feed({ type: 'rate_limit_event', ...base });
    feed({
      type: 'assistant',
      message: {
        content: [
          { type: 'thinking', thinking: 'hmm' },
          { type: 'redacted_thinking', data: 'x' },
        ],
      },
      ...base,
    });
    feed({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'false' } }] }, ...base });
    expect(out.map((e) => e.type)).toEqual(['reasoning']);
    feed({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'Exit code 1\n', is_error: true }] }, ...base });
    feed({
      type: 'assistant',
      message: { content: [{ type: 'tool_use', id: 't2', name: 'Edit', input: { file_path: '/w/a.txt', old_string: 'a', new_string: 'b' } }] },
      ...base,
    });
    feed({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: 'updated' }] }] },
      ...base,
    });
    feed({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 't3', name: 'mcp__docs__search', input: { q: 'x' } }] }, ...base });
    feed({ type: 'assistant', message: { content: [{ type: 'text', text: 'oops' }] }, error: 'rate_limit', ...base });
    feed({
      type: 'result',
      subtype: 'error_max_turns',
      is_error: true,
      errors: ['max turns reached'],
      total_cost_usd: 0.5,
      usage: { input_tokens: 3, output_tokens: 4 },
      ...base,
    });
    expect(mapper.sessionStarted).toBe('claude-code session s started (model m)');
    expect(out.map((e) => [e.type, e.toolName])).toEqual([
      ['reasoning', null],
      ['tool_call', 'Bash'],
      ['tool_call', 'Edit'],
      ['file_change', null],
      ['assistant_message', null],
      ['error', null],
      ['tool_call', 'search'],
      ['usage', null],
      ['error', null],
    ]);
    expect(out[1]?.payload).toMatchObject({ kind: 'shell', exitCode: 1, output: '', isError: true });
    expect(out[2]?.payload).toMatchObject({ kind: 'file_edit', input: { file_path: 'a.txt' }, output: 'updated' });
    expect(out[3]?.payload).toEqual({ changes: [{ path: 'a.txt', kind: 'update' }] });
    expect(out[6]?.payload).toEqual({ kind: 'mcp', server: 'docs', input: { q: 'x' }, status: 'unfinished' });
    expect(out[7]?.payload).toMatchObject({ costUsd: 0.5, inputTokens: 3, outputTokens: 4 });
    expect(mapper.result).toMatchObject({ status: 'failed', error: 'error_max_turns: max turns reached' });
  });

  test('a success result with is_error is a failure carrying the result text', () => {
    const mapper = new ClaudeStreamMapper('/w');
    mapper.map({ type: 'result', subtype: 'success', is_error: true, result: 'API Error: 401 invalid x-api-key', usage: {}, ...base });
    expect(mapper.result).toMatchObject({ status: 'failed', error: 'API Error: 401 invalid x-api-key' });
  });

  test("a provider that cannot be reached: the error names it; a resumed session's cost counts from its cost before the turn", () => {
    const mapper = new ClaudeStreamMapper('/w', { providerUrl: 'http://127.0.0.1:4319', costBaseline: 0.25 });
    mapper.map({
      type: 'result',
      subtype: 'success',
      is_error: true,
      result: 'API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)',
      total_cost_usd: 0.25,
      usage: {},
      ...base,
    });
    expect(mapper.result).toMatchObject({
      status: 'failed',
      error:
        'claude-code could not reach the model provider at http://127.0.0.1:4319: API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)',
      usage: { costUsd: 0 },
    });
    const next = new ClaudeStreamMapper('/w', { providerUrl: 'http://127.0.0.1:4319', costBaseline: 0.25 });
    next.map({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'ok',
      total_cost_usd: 0.75,
      usage: { input_tokens: 1, output_tokens: 1 },
      ...base,
    });
    expect(next.result).toMatchObject({ status: 'success', usage: { costUsd: 0.5 } });
  });
});
