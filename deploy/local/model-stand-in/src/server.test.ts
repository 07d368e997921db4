// The HTTP surface, spoken to directly (the real CLIs drive it in realCodex/realClaudeCode.test.ts).
import { parseSse } from './sse.js';
import { startModelStandIn, type ModelStandIn } from './server.js';

let standIn: ModelStandIn;
beforeAll(async () => {
  standIn = await startModelStandIn();
});
afterAll(() => standIn.close());

const codexBody = (prompt: string, stream = true) => ({
  model: 'gpt-test',
  stream,
  input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] }],
  tools: [{ type: 'function', name: 'exec_command', parameters: {} }],
});
const claudeBody = (prompt: string, stream = true) => ({
  model: 'claude-test',
  stream,
  max_tokens: 1000,
  system: 'Primary working directory: /work/tree',
  messages: [{ role: 'user', content: prompt }],
  tools: [{ name: 'Bash' }, { name: 'Write' }],
});

function post(path: string, body: unknown, headers: Record<string, string> = { authorization: 'Bearer sk-test' }): Promise<Response> {
  return fetch(`${standIn.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

describe('routes', () => {
  test('GET /healthz answers ok', async () => {
    const res = await fetch(`${standIn.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  test('refusals come in each API’s own error shape: no key 401, not JSON 400, unknown path 404', async () => {
    const noKey = await post('/v1/responses', codexBody('x'), {});
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toEqual({
      error: { message: 'no API key in the request', type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
    });
    const claudeNoKey = await post('/v1/messages', claudeBody('x'), {});
    expect(claudeNoKey.status).toBe(401);
    expect(await claudeNoKey.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const notJson = await fetch(`${standIn.url}/v1/messages?beta=true`, { method: 'POST', headers: { 'x-api-key': 'k' }, body: '{' });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: 'the request body is not JSON' } });
    const unknown = await post('/v1/requests-log', {});
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { type: 'invalid_request_error', message: 'no route POST /v1/requests-log' } });
    const unknownClaude = await post('/v1/messages/batches', {});
    expect(await unknownClaude.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    expect((await fetch(`${standIn.url}/v1/responses`)).status).toBe(405);
  });
});

describe('@drop: the connection is closed without an answer, as a provider that cannot be reached', () => {
  test.each([
    ['/v1/responses', codexBody('@say never said\n@drop')],
    ['/v1/messages', claudeBody('@drop')],
  ])('%s: no status, no body, the socket closed', async (path, body) => {
    await expect(post(path, body)).rejects.toMatchObject({ cause: expect.objectContaining({ code: 'UND_ERR_SOCKET' }) });
  });

  test('a line that only mentions @drop is prompt text', async () => {
    const res = await post('/v1/responses', codexBody('@say please do not @drop this', false));
    expect(res.status).toBe(200);
  });
});

describe('POST /v1/responses', () => {
  test('streams the Responses events codex builds its items from, in order, with usage at the end', async () => {
    const res = await post('/v1/responses', codexBody('@say hi\n@shell ls'));
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const call = events[11]?.data as { item: { type: string; name: string; arguments: string } };
    expect(call.item).toMatchObject({ type: 'function_call', name: 'exec_command' });
    expect(JSON.parse(call.item.arguments)).toMatchObject({ cmd: 'ls' });
    // The stand-ins' rule: a quarter of the prompt's 17 characters (5) + 100 in; 20 per step (2) + 10 out.
    expect((events.at(-1)?.data as { response: { usage: unknown } }).response.usage).toEqual({
      input_tokens: 105,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 50,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 155,
    });
  });

  test('@fail with nothing before it is an HTTP 400 in the OpenAI error shape', async () => {
    const res = await post('/v1/responses', codexBody('@fail nope'));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { message: 'nope', type: 'invalid_request_error', param: null, code: null } });
  });

  test('stream: false answers one JSON response with the same output', async () => {
    const res = await post('/v1/responses', codexBody('@say whole', false));
    expect(await res.json()).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'gpt-test',
      output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'whole' }] }],
    });
  });
});

describe('POST /v1/messages', () => {
  test('streams the Messages events, a tool_use with its input in JSON parts, stop_reason tool_use', async () => {
    const res = await post('/v1/messages?beta=true', claudeBody('@say hi\n@write notes/a.txt x'), { 'x-api-key': 'sk-ant' });
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[5]?.data).toMatchObject({ index: 1, content_block: { type: 'tool_use', name: 'Write', input: {} } });
    expect(JSON.parse((events[6]?.data as { delta: { partial_json: string } }).delta.partial_json)).toEqual({
      file_path: '/work/tree/notes/a.txt',
      content: 'x',
    });
    expect(events[8]?.data).toMatchObject({ delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 50 } });
    // 28 characters: 7 + 100.
    expect((events[0]?.data as { message: { usage: unknown } }).message.usage).toMatchObject({ input_tokens: 107 });
  });

  test('@fail is an error event in the stream; a last answer without a word closes with one', async () => {
    const failed = parseSse(await (await post('/v1/messages', claudeBody('@fail nope'))).text());
    expect(failed.at(-1)).toEqual({ event: 'error', data: { type: 'error', error: { type: 'invalid_request_error', message: 'nope' } } });
    const silent = await post('/v1/messages', claudeBody('@sleep 1', false));
    expect(await silent.json()).toMatchObject({ type: 'message', content: [{ type: 'text', text: 'Done.' }], stop_reason: 'end_turn' });
  });
});

test('close() ends an answer held by @sleep at once', async () => {
  const own = await startModelStandIn();
  const res = await fetch(`${own.url}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': 'k' },
    body: JSON.stringify(claudeBody('@say a\n@sleep 60000')),
  });
  const started = Date.now();
  await own.close();
  await res.text().catch(() => '');
  expect(Date.now() - started).toBeLessThan(5_000);
});
