// POST /v1/messages: the Anthropic Messages API as Claude Code 2.1.330 drives it, streamed as
// Server-Sent Events, tool_use blocks for the tools it offers (Bash, Write, MCP tools as
// `mcp__<server>__<tool>`).
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { posix } from 'node:path';
import type { MessagesTurn } from './conversation.js';
import { CLOSING_MESSAGE, endsSilently, noPromptAnswer, planAnswer, type Action, type Answer, type ToolCall } from './script.js';
import { chunks, pause, SseWriter } from './sse.js';

const id = (prefix: string): string => `${prefix}_${randomBytes(12).toString('base64url')}`;

/** The error body of the Anthropic API. */
export function anthropicError(message: string, type: string): Record<string, unknown> {
  return { type: 'error', error: { type, message }, request_id: id('req') };
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** The tool_use block of a call, in Claude Code's own tools; null when it cannot be spelled (no working directory for Write). */
export function claudeCall(call: ToolCall, tools: readonly string[], cwd: string | null): Block | null {
  const use = (name: string, input: Record<string, unknown>): Block => ({ type: 'tool_use', id: id('toolu'), name, input });
  switch (call.kind) {
    case 'shell':
      // Bash's longest timeout (its default is 2 minutes): a script's command runs to its end.
      return use('Bash', { command: call.command, description: 'Run a shell command', timeout: 600_000 });
    case 'write':
      return cwd === null ? null : use('Write', { file_path: posix.join(cwd, call.path), content: call.text });
    case 'tool': {
      const offered = tools.find((name) => name === call.name) ?? tools.find((name) => name.startsWith('mcp__') && name.endsWith(`__${call.name}`));
      return use(offered ?? call.name, call.input);
    }
  }
}

export function answerOf(turn: MessagesTurn): Answer {
  if (turn.prompt === null) return noPromptAnswer();
  const answer = planAnswer({ prompt: turn.prompt, earlierPrompts: turn.earlierPrompts, model: turn.model, toolOutputs: turn.toolOutputs });
  return endsSilently(answer) ? { ...answer, actions: [...answer.actions, { kind: 'say', text: CLOSING_MESSAGE }] } : answer;
}

/** The answer's content blocks and sleeps in order; a call that cannot be spelled becomes a sentence saying so. */
function blocksOf(actions: readonly Action[], turn: MessagesTurn): (Block | Action)[] {
  return actions.map((action) => {
    if (action.kind === 'say') return { type: 'text', text: action.text };
    if (action.kind !== 'call') return action;
    return claudeCall(action.call, turn.tools, turn.cwd) ?? { type: 'text', text: '@write: the request names no working directory to write in' };
  });
}

function usageOf(answer: Answer, output: number): Record<string, unknown> {
  return { input_tokens: answer.usage.input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: output };
}

/**
 * Streams the answer as the Messages API does. `@fail` is an `error` event in the stream, which
 * Claude Code reports at once: it answers an HTTP 400 by asking again up to five times with fewer
 * beta features, so a 400 would only be slower to say the same.
 */
export async function streamMessage(res: ServerResponse, turn: MessagesTurn, answer: Answer): Promise<void> {
  const writer = new SseWriter(res);
  const send = (type: string, fields: Record<string, unknown> = {}): Promise<void> => writer.send(type, { type, ...fields });
  await send('message_start', {
    message: {
      id: id('msg'),
      type: 'message',
      role: 'assistant',
      model: turn.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usageOf(answer, 1),
    },
  });
  await send('ping');
  let index = 0;
  let lastIsCall = false;
  for (const block of blocksOf(answer.actions, turn)) {
    if (writer.gone.aborted) break;
    if (!('type' in block)) {
      if (block.kind === 'sleep') await pause(block.ms, writer.gone);
      else if (block.kind === 'fail') {
        await send('error', { error: { type: 'invalid_request_error', message: block.message } });
        writer.end();
        return;
      }
      continue;
    }
    if (block.type === 'text') {
      await send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const text of chunks(block.text)) await send('content_block_delta', { index, delta: { type: 'text_delta', text } });
    } else {
      await send('content_block_start', { index, content_block: { ...block, input: {} } });
      for (const partial of chunks(JSON.stringify(block.input)))
        await send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: partial } });
    }
    await send('content_block_stop', { index });
    lastIsCall = block.type === 'tool_use';
    index += 1;
  }
  await send('message_delta', {
    delta: { stop_reason: lastIsCall ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: answer.usage.output },
  });
  await send('message_stop');
  writer.end();
}

/** The same answer as one JSON message (`stream` not true); `@fail` is an HTTP 400. */
export async function wholeMessage(res: ServerResponse, turn: MessagesTurn, answer: Answer): Promise<void> {
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  const content: Block[] = [];
  for (const block of blocksOf(answer.actions, turn)) {
    if ('type' in block) content.push(block);
    else if (block.kind === 'sleep') await pause(block.ms, gone.signal);
    else if (block.kind === 'fail') {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify(anthropicError(block.message, 'invalid_request_error')));
      return;
    }
  }
  const stopReason = content.at(-1)?.type === 'tool_use' ? 'tool_use' : 'end_turn';
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      id: id('msg'),
      type: 'message',
      role: 'assistant',
      model: turn.model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: usageOf(answer, answer.usage.output),
    }),
  );
}
