// The readers on requests shaped as the bundled CLIs send them (captured from codex-cli 0.163.0 and
// Claude Code 2.1.330, cut down to the parts the readers look at).
import { isCodexContext, readMessagesRequest, readResponsesRequest } from './conversation.js';

const text = (t: string) => ({ type: 'input_text', text: t });
const user = (t: string) => ({ type: 'message', role: 'user', content: [text(t)] });

const codexContext = [
  {
    type: 'additional_tools',
    role: 'developer',
    tools: [
      {
        type: 'namespace',
        name: 'functions',
        tools: [
          { type: 'custom', name: 'exec', format: { type: 'grammar' } },
          { type: 'function', name: 'wait', parameters: {} },
        ],
      },
      { type: 'namespace', name: 'mcp__standin', tools: [{ type: 'function', name: 'search', parameters: {} }] },
    ],
  },
  { type: 'message', role: 'developer', content: [text('You are Codex, an agent based on GPT-6.')] },
  user('<environment_context>\n  <cwd>/work/tree &amp; co</cwd>\n  <shell>bash</shell>\n</environment_context>'),
  user('# AGENTS.md instructions for /work/tree\n\n<INSTRUCTIONS>\nBe brief.\n</INSTRUCTIONS>'),
];

describe('the Responses reader (codex)', () => {
  test('a new turn: the prompt is the user message codex did not add; the cwd from its environment context; code mode', () => {
    const turn = readResponsesRequest({ model: 'gpt-6.1-sol', stream: true, input: [...codexContext, user('@say hi')] });
    expect(turn).toMatchObject({ model: 'gpt-6.1-sol', prompt: '@say hi', earlierPrompts: [], toolOutputs: [], cwd: '/work/tree & co', pending: null });
    expect(turn.tools.exec).toBe(true);
    expect(turn.tools.functions).toEqual([
      { name: 'wait', namespace: 'functions' },
      { name: 'search', namespace: 'mcp__standin' },
    ]);
  });

  test('a resumed thread: earlier prompts in order, and only the results since the last prompt count', () => {
    const turn = readResponsesRequest({
      model: 'm',
      input: [
        ...codexContext,
        user('first\nprompt'),
        { type: 'custom_tool_call', call_id: 'c1', name: 'exec', input: '…' },
        { type: 'custom_tool_call_output', call_id: 'c1', output: [text('Script completed\nOutput:\n'), text('old\n')] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] },
        user('<turn_aborted>\ninterrupted\n</turn_aborted>'),
        user('second'),
        { type: 'custom_tool_call', call_id: 'c2', name: 'exec', input: '…' },
        { type: 'custom_tool_call_output', call_id: 'c2', output: 'Script completed\nOutput:\nnew\n' },
      ],
    });
    expect(turn.prompt).toBe('second');
    expect(turn.earlierPrompts).toEqual(['first\nprompt']);
    expect(turn.toolOutputs).toEqual(['Script completed\nOutput:\nnew\n']);
  });

  test('a call still running is pending, not a result: an exec cell, then the wait that finishes it', () => {
    const running = [
      user('@shell sleep 60'),
      { type: 'custom_tool_call', call_id: 'c1', name: 'exec', input: '…' },
      { type: 'custom_tool_call_output', call_id: 'c1', output: 'Script running with cell ID 7\nWall time 30.0 seconds\nOutput:\n' },
    ];
    const pending = readResponsesRequest({ model: 'm', input: running });
    expect(pending.pending).toEqual({ kind: 'cell', cellId: '7' });
    expect(pending.toolOutputs).toEqual([]);
    const done = readResponsesRequest({
      model: 'm',
      input: [
        ...running,
        { type: 'function_call', call_id: 'c2', name: 'wait', arguments: '{"cell_id":"7"}' },
        { type: 'function_call_output', call_id: 'c2', output: [text('Script completed\nOutput:\n'), text('late\n')] },
      ],
    });
    expect(done.pending).toBeNull();
    expect(done.toolOutputs).toEqual(['Script running with cell ID 7\nWall time 30.0 seconds\nOutput:\nScript completed\nOutput:\n\nlate\n']);
  });

  test('classic tools: a command still running (exec_command), then write_stdin’s exit; top-level function tools', () => {
    const turn = readResponsesRequest({
      model: 'gpt-x',
      tools: [
        { type: 'function', name: 'exec_command', parameters: {} },
        { type: 'function', name: 'write_stdin', parameters: {} },
      ],
      input: [
        user('@shell sleep 60'),
        { type: 'function_call', call_id: 'c1', name: 'exec_command', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'Chunk ID: a\nWall time: 30 seconds\nProcess running with session ID 41883\nOutput:\n' },
      ],
    });
    expect(turn.tools).toEqual({
      exec: false,
      custom: [],
      functions: [
        { name: 'exec_command', namespace: null },
        { name: 'write_stdin', namespace: null },
      ],
    });
    expect(turn.pending).toEqual({ kind: 'session', sessionId: 41883 });
    // The same words printed by a command inside code mode are only output.
    const coded = readResponsesRequest({
      model: 'm',
      input: [
        user('@shell echo'),
        { type: 'custom_tool_call', call_id: 'c1', name: 'exec', input: '…' },
        { type: 'custom_tool_call_output', call_id: 'c1', output: 'Process running with session ID 1\n' },
      ],
    });
    expect(coded.pending).toBeNull();
    expect(coded.toolOutputs).toHaveLength(1);
  });

  test('no prompt at all (only codex’s own context): null', () => {
    expect(readResponsesRequest({ model: 'm', input: codexContext }).prompt).toBeNull();
    expect(readResponsesRequest({ model: 'm' })).toMatchObject({ prompt: null, cwd: null, toolOutputs: [] });
  });

  test('codex context: its known prefixes, or a message that is one <snake_case> element; anything else is typed', () => {
    for (const context of [
      '<environment_context>x</environment_context>',
      '# AGENTS.md instructions for /w\nx',
      '<subagent_notification>{}</subagent_notification>',
    ])
      expect(isCodexContext(context)).toBe(true);
    for (const typed of ['@say <b>hi</b>', 'Fix <environment_context> parsing', 'hello']) expect(isCodexContext(typed)).toBe(false);
  });
});

const reminder = (t: string) => ({ type: 'text', text: `<system-reminder>\n${t}\n</system-reminder>` });

describe('the Messages reader (Claude Code)', () => {
  const system = {
    role: 'system',
    content: '# Environment\n - Primary working directory: /work/tree\n - Is a git repository: true\n\nDeferred tools:\nWebFetch\nmcp__standin__search\n',
  };

  test('the prompt is the text Claude Code did not add; cwd from its system message; deferred MCP tools count as offered', () => {
    const turn = readMessagesRequest({
      model: 'claude-opus-5-5',
      system: [{ type: 'text', text: 'You are a Claude agent.' }],
      tools: [{ name: 'Bash' }, { name: 'Write' }],
      messages: [{ role: 'user', content: [reminder('# gitStatus'), reminder('Attribution…'), { type: 'text', text: '@say hi' }] }, system],
    });
    expect(turn).toMatchObject({ model: 'claude-opus-5-5', prompt: '@say hi', earlierPrompts: [], toolOutputs: [], cwd: '/work/tree' });
    expect(turn.tools).toEqual(['Bash', 'Write', 'mcp__standin__search']);
  });

  test('a resumed session: earlier prompts, the results since the last prompt; notices and reminders are not prompts', () => {
    const turn = readMessagesRequest({
      model: 'm',
      system: 'You are Claude Code. Primary working directory: /w',
      messages: [
        { role: 'user', content: [reminder('ctx'), { type: 'text', text: 'first\nprompt' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'old' }] },
        { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user for tool use]' }] },
        { role: 'user', content: 'second' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'Bash', input: { command: 'ls' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: 'new' }] }, reminder('todo')] },
        {
          role: 'user',
          content: [{ type: 'text', text: '[Your previous response had no visible output. Please continue and produce a user-visible response.]' }],
        },
      ],
    });
    expect(turn.prompt).toBe('second');
    expect(turn.earlierPrompts).toEqual(['first\nprompt']);
    expect(turn.toolOutputs).toEqual(['new']);
    expect(turn.cwd).toBe('/w');
  });

  test('no prompt, no tools, no cwd: the reader says so instead of failing', () => {
    expect(readMessagesRequest({ messages: 'nonsense' })).toEqual({ model: '', prompt: null, earlierPrompts: [], toolOutputs: [], cwd: null, tools: [] });
  });
});
