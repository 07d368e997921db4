// POST /v1/responses: the OpenAI Responses API as Codex 0.163 drives it, streamed as Server-Sent
// Events. Codex offers its tools one of two ways and the answer follows what the request offers:
// code mode (its default models: a freeform `exec` tool whose input is JavaScript calling
// `tools.exec_command(…)`, `tools.apply_patch(…)`), or classic function tools (`exec_command`,
// `apply_patch` when offered, else a patch through `apply_patch <<EOF` in a command, which codex
// intercepts as a patch).
import { randomBytes } from 'node:crypto';
import { fakeUsage } from '@ars/harness-stand-ins';
import type { ServerResponse } from 'node:http';
import type { CodexTools, PendingCall, ResponsesTurn } from './conversation.js';
import { noPromptAnswer, planAnswer, type Action, type Answer, type ToolCall } from './script.js';
import { chunks, pause, SseWriter } from './sse.js';

const id = (prefix: string): string => `${prefix}_${randomBytes(12).toString('hex')}`;

/** The error body of the OpenAI API. */
export function openaiError(message: string, type: string, code: string | null = null): { error: Record<string, unknown> } {
  return { error: { message, type, param: null, code } };
}

// A long command must not end the model's view of it early: exec_command's own wait is raised to
// its maximum and the script polls the process until it exits (codex then reports the command
// once, complete); the `exec` cell itself is told to wait that long too.
const EXEC_PRAGMA = '// @exec: {"yield_time_ms": 3600000}';

function shellScript(command: string): string {
  return [
    EXEC_PRAGMA,
    `let result = await tools.exec_command({ cmd: ${JSON.stringify(command)}, yield_time_ms: 30000 });`,
    `let output = result.output ?? '';`,
    `while (result.exit_code === undefined && result.session_id !== undefined) {`,
    `  result = await tools.write_stdin({ session_id: result.session_id, chars: '', yield_time_ms: 30000 });`,
    `  output += result.output ?? '';`,
    `}`,
    `text(output);`,
  ].join('\n');
}

/** `tools.<name>` may be an MCP tool under its qualified name (`mcp__<server>__<name>`): found in ALL_TOOLS at run time. */
function toolScript(name: string, input: Record<string, unknown>): string {
  return [
    EXEC_PRAGMA,
    `const wanted = ${JSON.stringify(name)};`,
    'const found = ALL_TOOLS.find((tool) => tool.name === wanted) ?? ALL_TOOLS.find((tool) => tool.name.endsWith(`__${wanted}`));',
    `text(await tools[found ? found.name : wanted](${JSON.stringify(input)}));`,
  ].join('\n');
}

/**
 * A patch adding the file with exactly these lines (over an existing file too: the model does not
 * know whether it is there). apply_patch ends every file with a newline, so one trailing newline of
 * the text is the patch's own.
 */
export function addFilePatch(path: string, text: string): string {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  const lines = body === '' ? [] : body.split('\n');
  return `*** Begin Patch\n*** Add File: ${path}\n${lines.map((line) => `+${line}\n`).join('')}*** End Patch\n`;
}

/** `apply_patch <<'ARS_PATCH' …`, the form codex intercepts in a command, with a delimiter no line of the patch is. */
function patchCommand(patch: string): string {
  const lines = new Set(patch.split('\n'));
  let delimiter = 'ARS_PATCH';
  while (lines.has(delimiter)) delimiter += '_';
  return `apply_patch <<'${delimiter}'\n${patch}${delimiter}`;
}

type OutputItem = Record<string, unknown> & { type: string; id: string };

function functionCall(name: string, args: Record<string, unknown>, namespace: string | null = null): OutputItem {
  // A tool of codex's own `functions` namespace is called by its name alone; another namespace's (an MCP server's) names it.
  const scope = namespace !== null && namespace !== 'functions' ? { namespace } : {};
  return { type: 'function_call', id: id('fc'), call_id: id('call'), name, ...scope, arguments: JSON.stringify(args), status: 'completed' };
}

function customCall(name: string, input: string): OutputItem {
  return { type: 'custom_tool_call', id: id('ctc'), call_id: id('call'), name, input, status: 'completed' };
}

/** The output item that asks codex for a call, in the tools this request offers. */
export function codexCall(call: ToolCall, tools: CodexTools, cwd: string | null): OutputItem {
  if (tools.exec) {
    if (call.kind === 'shell') return customCall('exec', shellScript(call.command));
    if (call.kind === 'write')
      return customCall('exec', `${EXEC_PRAGMA}\ntext(await tools.apply_patch(${JSON.stringify(addFilePatch(call.path, call.text))}));`);
    return customCall('exec', toolScript(call.name, call.input));
  }
  const shell = (command: string): OutputItem => functionCall('exec_command', { cmd: command, ...(cwd ? { workdir: cwd } : {}), yield_time_ms: 30000 });
  if (call.kind === 'shell') return shell(call.command);
  if (call.kind === 'write') {
    const patch = addFilePatch(call.path, call.text);
    if (tools.custom.includes('apply_patch')) return customCall('apply_patch', patch);
    if (tools.functions.some((tool) => tool.name === 'apply_patch')) return functionCall('apply_patch', { input: patch });
    return shell(patchCommand(patch));
  }
  // An MCP server's tool of that name first, then any tool of that name; none: the name as given (codex reports it unsupported).
  const offered =
    tools.functions.find((tool) => tool.name === call.name && tool.namespace?.startsWith('mcp__') === true) ??
    tools.functions.find((tool) => tool.name === call.name);
  return functionCall(call.name, call.input, offered?.namespace ?? null);
}

/** The call that collects what a still-running call has done since. */
function pollCall(pending: PendingCall): OutputItem {
  return pending.kind === 'cell'
    ? functionCall('wait', { cell_id: pending.cellId })
    : functionCall('write_stdin', { session_id: pending.sessionId, chars: '', yield_time_ms: 30000 });
}

function messageItem(text: string): OutputItem {
  return { type: 'message', id: id('msg'), status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
}

export function answerOf(turn: ResponsesTurn): Answer {
  if (turn.prompt === null) return noPromptAnswer();
  // Collecting a running call plays no step: `itemsOf` answers it with the call alone.
  if (turn.pending !== null) return { actions: [], usage: fakeUsage(turn.prompt, []) };
  return planAnswer({ prompt: turn.prompt, earlierPrompts: turn.earlierPrompts, model: turn.model, toolOutputs: turn.toolOutputs });
}

/** The answer's output items and sleeps in order: while a call is still running, only the call collecting it. */
function itemsOf(turn: ResponsesTurn, answer: Answer): (OutputItem | Action)[] {
  if (turn.pending) return [pollCall(turn.pending)];
  return answer.actions.map((action) =>
    action.kind === 'say' ? messageItem(action.text) : action.kind === 'call' ? codexCall(action.call, turn.tools, turn.cwd) : action,
  );
}

function usageOf(answer: Answer): Record<string, unknown> {
  const { input, output } = answer.usage;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}

/** Streams the answer as the Responses API does; `@fail` is an error codex does not retry. */
export async function streamResponse(res: ServerResponse, turn: ResponsesTurn, answer: Answer): Promise<void> {
  const writer = new SseWriter(res);
  const responseId = id('resp');
  const created = Math.floor(Date.now() / 1000);
  let sequence = 0;
  const output: OutputItem[] = [];
  const response = (status: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    id: responseId,
    object: 'response',
    created_at: created,
    status,
    model: turn.model,
    output,
    ...extra,
  });
  const send = (type: string, fields: Record<string, unknown>): Promise<void> => writer.send(type, { type, sequence_number: sequence++, ...fields });
  const items = itemsOf(turn, answer);
  const first = items.find((item) => 'id' in item || item.kind !== 'sleep');
  if (first !== undefined && !('id' in first) && first.kind === 'fail') {
    // Nothing to stream before it: a plain 400, which codex reports and does not retry.
    await failWith400(res, items, first.message, writer.gone);
    return;
  }
  await send('response.created', { response: response('in_progress') });
  await send('response.in_progress', { response: response('in_progress') });
  for (const item of items) {
    if (writer.gone.aborted) break;
    if (!('id' in item)) {
      if (item.kind === 'sleep') await pause(item.ms, writer.gone);
      else if (item.kind === 'fail') {
        // After streamed output: the stream fails. `invalid_prompt` is a code codex ends the turn on (a server error it retries).
        await send('response.failed', { response: response('failed', { error: { code: 'invalid_prompt', message: item.message } }) });
        writer.end();
        return;
      }
      continue;
    }
    await streamItem(send, output.length, item);
    output.push(item);
  }
  await send('response.completed', { response: response('completed', { usage: usageOf(answer) }) });
  writer.end();
}

async function failWith400(res: ServerResponse, items: readonly (OutputItem | Action)[], message: string, gone: AbortSignal): Promise<void> {
  for (const item of items) if (!('id' in item) && item.kind === 'sleep') await pause(item.ms, gone);
  res.writeHead(400, { 'content-type': 'application/json' });
  res.end(JSON.stringify(openaiError(message, 'invalid_request_error')));
}

/** The same answer as one JSON response (`stream` not true); `@fail` is an HTTP 400. */
export async function wholeResponse(res: ServerResponse, turn: ResponsesTurn, answer: Answer): Promise<void> {
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  const items = itemsOf(turn, answer);
  const failure = items.find((item) => !('id' in item) && item.kind === 'fail');
  if (failure !== undefined && !('id' in failure) && failure.kind === 'fail') {
    await failWith400(res, items, failure.message, gone.signal);
    return;
  }
  for (const item of items) if (!('id' in item) && item.kind === 'sleep') await pause(item.ms, gone.signal);
  const output = items.filter((item): item is OutputItem => 'id' in item);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      id: id('resp'),
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      status: 'completed',
      model: turn.model,
      output,
      usage: usageOf(answer),
    }),
  );
}

type Send = (type: string, fields: Record<string, unknown>) => Promise<void>;

/** One output item, added, its content streamed as deltas, done: the events codex builds its items from. */
async function streamItem(send: Send, outputIndex: number, item: OutputItem): Promise<void> {
  const where = { item_id: item.id, output_index: outputIndex };
  if (item.type === 'message') {
    const text = contentText(item);
    await send('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } });
    const part = { type: 'output_text', text: '', annotations: [] };
    await send('response.content_part.added', { ...where, content_index: 0, part });
    for (const delta of chunks(text)) await send('response.output_text.delta', { ...where, content_index: 0, delta });
    await send('response.output_text.done', { ...where, content_index: 0, text });
    await send('response.content_part.done', { ...where, content_index: 0, part: { ...part, text } });
  } else if (item.type === 'custom_tool_call') {
    const input = String(item.input);
    await send('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', input: '' } });
    for (const delta of chunks(input)) await send('response.custom_tool_call_input.delta', { ...where, delta });
    await send('response.custom_tool_call_input.done', { ...where, input });
  } else {
    const args = String(item.arguments);
    await send('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', arguments: '' } });
    for (const delta of chunks(args)) await send('response.function_call_arguments.delta', { ...where, delta });
    await send('response.function_call_arguments.done', { ...where, arguments: args });
  }
  await send('response.output_item.done', { output_index: outputIndex, item });
}

function contentText(item: OutputItem): string {
  const content = Array.isArray(item.content) ? (item.content as unknown[]) : [];
  const first = content[0];
  return typeof first === 'object' && first !== null && 'text' in first ? String(first.text) : '';
}
