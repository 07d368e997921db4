// Reading a turn out of a request: every request carries the whole conversation, in which the
// CLIs mix what the user typed with context of their own (codex: environment context, AGENTS.md;
// Claude Code: <system-reminder> blocks, a system message with the environment). These readers
// keep what the user typed (the prompts), the results of the tool calls since the last prompt,
// the working directory and the tools offered. Shapes as Codex 0.163 and Claude Code 2.1.330 send
// them (../shared/HARNESSES.md); anything unknown is skipped, never an error.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function stringOf(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** The text of a content value: a string, or the `text` of its parts (input_text, output_text, text), joined by newlines. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return arrayOf(content)
    .map((part) => (isRecord(part) ? stringOf(part.text) : null))
    .filter((text): text is string => text !== null)
    .join('\n');
}

export interface Turn {
  model: string;
  /** The prompt of the turn being answered (the last one typed); null when the conversation has none. */
  prompt: string | null;
  earlierPrompts: string[];
  /** Results of the finished tool calls since that prompt, oldest first. */
  toolOutputs: string[];
  /** The working directory the CLI runs in, when it says. */
  cwd: string | null;
}

/** The turn of a conversation whose typed prompts are `prompts` (the last one is this turn's). */
function turnOf(body: Record<string, unknown>, prompts: readonly { text: string }[], toolOutputs: string[], cwd: string | null): Turn {
  return {
    model: stringOf(body.model) ?? '',
    prompt: prompts.at(-1)?.text ?? null,
    earlierPrompts: prompts.slice(0, -1).map((p) => p.text),
    toolOutputs,
    cwd,
  };
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses (codex)

/** A call codex left running (its result says so): the model asks for the rest before going on. */
export type PendingCall = { kind: 'cell'; cellId: string } | { kind: 'session'; sessionId: number };

/** A function tool codex offers; one in a namespace is called with that namespace (MCP servers' are `mcp__<server>`). */
export interface CodexFunction {
  name: string;
  namespace: string | null;
}

export interface CodexTools {
  /** Code mode: the freeform `exec` tool that runs JavaScript calling the other tools (`tools.exec_command` …). */
  exec: boolean;
  functions: CodexFunction[];
  /** Freeform (custom) tools by name (`exec`, `apply_patch`). */
  custom: string[];
}

export interface ResponsesTurn extends Turn {
  tools: CodexTools;
  /** Set when the last tool result is of a call still running; `toolOutputs` then leaves it out. */
  pending: PendingCall | null;
}

// Codex's own user-role context (codex-rs: its contextual user messages): never a prompt.
const CODEX_CONTEXT_PREFIXES = [
  '<environment_context>',
  '<user_instructions>',
  '# AGENTS.md instructions for ',
  '<user_shell_command>',
  '<turn_aborted>',
  '<subagent_notification>',
  '<skill>',
];
const ONE_ELEMENT = /^\s*<([a-z_]+)(?:\s[^>]*)?>[\s\S]*<\/\1>\s*$/;

/** Whether a user message is context codex added (its known prefixes, or the whole text one `<snake_case>` element), not a prompt. */
export function isCodexContext(text: string): boolean {
  const trimmed = text.trimStart();
  return CODEX_CONTEXT_PREFIXES.some((prefix) => trimmed.startsWith(prefix)) || ONE_ELEMENT.test(text);
}

function unescapeXml(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp);/g, (_m, name: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[name] ?? '');
}

function collectCodexTools(list: unknown, tools: CodexTools, namespace: string | null = null): void {
  for (const tool of arrayOf(list)) {
    if (!isRecord(tool)) continue;
    const name = stringOf(tool.name);
    if (tool.type === 'namespace') collectCodexTools(tool.tools, tools, name);
    else if (name !== null && tool.type === 'function') tools.functions.push({ name, namespace });
    else if (name !== null && tool.type === 'custom') {
      tools.custom.push(name);
      if (name === 'exec') tools.exec = true;
    }
  }
}

const CELL_RUNNING = /^Script running with cell ID (\S+)/;
const SESSION_RUNNING = /^Process running with session ID (\d+)$/m;

export function readResponsesRequest(body: Record<string, unknown>): ResponsesTurn {
  const input = arrayOf(body.input);
  const tools: CodexTools = { exec: false, functions: [], custom: [] };
  collectCodexTools(body.tools, tools);
  const prompts: { index: number; text: string }[] = [];
  let cwd: string | null = null;
  input.forEach((item, index) => {
    if (!isRecord(item)) return;
    if (item.type === 'additional_tools') collectCodexTools(item.tools, tools);
    const isMessage = item.type === 'message' || (item.type === undefined && typeof item.role === 'string');
    if (!isMessage || item.role !== 'user') return;
    const text = contentText(item.content);
    const at = /<cwd>([^<]*)<\/cwd>/.exec(text);
    if (text.trimStart().startsWith('<environment_context>') && at) cwd = unescapeXml(at[1] ?? '');
    if (!isCodexContext(text)) prompts.push({ index, text });
  });
  const current = prompts.at(-1);
  // Which call each result answers, to tell a still-running exec cell or command from a finished one.
  const callNames = new Map<string, string>();
  for (const item of input) {
    if (isRecord(item) && (item.type === 'custom_tool_call' || item.type === 'function_call')) {
      const id = stringOf(item.call_id);
      const name = stringOf(item.name);
      if (id !== null && name !== null) callNames.set(id, name);
    }
  }
  const toolOutputs: string[] = [];
  let pending: PendingCall | null = null;
  let partial = '';
  for (const item of current ? input.slice(current.index + 1) : []) {
    if (!isRecord(item) || (item.type !== 'custom_tool_call_output' && item.type !== 'function_call_output')) continue;
    const output = contentText(item.output);
    const name = callNames.get(stringOf(item.call_id) ?? '') ?? '';
    partial += output;
    const cell = name === 'exec' || name === 'wait' ? CELL_RUNNING.exec(output) : null;
    const session = name === 'exec_command' || name === 'write_stdin' ? SESSION_RUNNING.exec(output) : null;
    if (cell) pending = { kind: 'cell', cellId: cell[1] ?? '' };
    else if (session) pending = { kind: 'session', sessionId: Number(session[1]) };
    else {
      toolOutputs.push(partial);
      partial = '';
      pending = null;
    }
  }
  return { ...turnOf(body, prompts, toolOutputs, cwd), tools, pending };
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages (Claude Code)

export interface MessagesTurn extends Turn {
  /**
   * The tools offered, by name (`Bash`, `Write` …), with the MCP tools (`mcp__<server>__<tool>`):
   * Claude Code defers those, naming them in its system text instead of the tool list, and runs
   * one called by that name.
   */
  tools: string[];
}

const MCP_TOOL_NAME = /\bmcp__[A-Za-z0-9_-]+?__[A-Za-z0-9_-]+/g;

// Text Claude Code puts in user messages that the user did not type: context in <system-reminder>,
// slash-command records, and its notices on one bracketed line ("[Request interrupted by user]",
// "[Your previous response had no visible output. Please continue …]"). Read as prompts, a notice
// would restart the script: the nudge after an answer without text would loop for ever.
const CLAUDE_INJECTED = [/^\s*<system-reminder>/, /^\s*<(local-)?command-[a-z-]+>/, /^\[[^\n\]]+\]\s*$/];

function isClaudeInjected(text: string): boolean {
  return CLAUDE_INJECTED.some((pattern) => pattern.test(text));
}

/** The typed text of a user message: its text blocks that Claude Code did not inject, joined by newlines; null when none. */
function typedText(content: unknown): string | null {
  if (typeof content === 'string') return isClaudeInjected(content) ? null : content;
  const texts = arrayOf(content)
    .filter((block): block is Record<string, unknown> => isRecord(block) && block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .filter((text) => !isClaudeInjected(text));
  return texts.length === 0 ? null : texts.join('\n');
}

const WORKING_DIRECTORY = /Primary working directory: ([^\n]+)/;

export function readMessagesRequest(body: Record<string, unknown>): MessagesTurn {
  const messages = arrayOf(body.messages).filter(isRecord);
  // The environment is in the system prompt or, in this version, a system-role message.
  const systemTexts = [contentText(body.system), ...messages.filter((m) => m.role === 'system').map((m) => contentText(m.content))];
  const cwd = systemTexts.map((text) => WORKING_DIRECTORY.exec(text)?.[1]?.trim()).find((dir) => dir !== undefined) ?? null;
  const prompts: { index: number; text: string }[] = [];
  messages.forEach((message, index) => {
    if (message.role !== 'user') return;
    const text = typedText(message.content);
    if (text !== null) prompts.push({ index, text });
  });
  const current = prompts.at(-1);
  const toolOutputs: string[] = [];
  for (const message of current ? messages.slice(current.index + 1) : []) {
    if (message.role !== 'user') continue;
    for (const block of arrayOf(message.content)) {
      if (isRecord(block) && block.type === 'tool_result') toolOutputs.push(contentText(block.content));
    }
  }
  return {
    ...turnOf(body, prompts, toolOutputs, cwd),
    tools: [
      ...new Set([
        ...arrayOf(body.tools)
          .map((tool) => (isRecord(tool) ? stringOf(tool.name) : null))
          .filter((name): name is string => name !== null),
        ...systemTexts.flatMap((text) => text.match(MCP_TOOL_NAME) ?? []),
      ]),
    ],
  };
}
