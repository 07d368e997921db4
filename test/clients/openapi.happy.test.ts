// The OpenAPI document is honest: fetched from the running gateway without a token, its response
// schemas accept what the real routes answer (success data and error envelopes alike), on the whole
// stack through HTTP, as a generated client would read them.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { bearer, call, createToken, type Account, type Answer } from '../support/accounts.js';
import { automationClient, graphOf, publishAutomation, untilRun } from '../support/automations.js';
import { readEventStream } from '../support/eventStream.js';
import { newRunsUser, type RunsClient } from '../support/runs.js';
import { sharedSystem } from '@ars/testenv';

const system = sharedSystem();

type Json = Record<string, unknown>;
let document: Json;
let runs: RunsClient;
let account: Account;
let repoId: string;
let token: string;

// strict: false: the document's schemas carry OpenAPI's annotations beside JSON Schema's keywords.
const ajv = new Ajv2020({ strict: false, allowUnionTypes: true });

/** `node` with every `#/components/…` reference replaced by what it names (the document has no cycles). */
function dereferenced(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dereferenced);
  if (node === null || typeof node !== 'object') return node;
  const reference = (node as { $ref?: unknown }).$ref;
  if (typeof reference === 'string') {
    const target = reference
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((at, key) => (at as Json | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
    if (target === undefined) throw new Error(`the document has no ${reference}`);
    return dereferenced(target);
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, dereferenced(value)]));
}

/** The schema the document gives the answer of `METHOD path` with this status and media type. */
function responseSchema(method: string, path: string, status: number, mediaType = 'application/json'): Json {
  const operation = ((document.paths as Json)[path] as Json | undefined)?.[method.toLowerCase()] as Json | undefined;
  if (!operation) throw new Error(`the document has no ${method} ${path}`);
  const response = dereferenced((operation.responses as Json)[String(status)]) as Json | undefined;
  if (!response) throw new Error(`the document gives ${method} ${path} no ${status} response`);
  const schema = ((response.content as Json | undefined)?.[mediaType] as Json | undefined)?.schema as Json | undefined;
  if (!schema) throw new Error(`the document gives ${method} ${path} ${status} no ${mediaType} schema`);
  return schema;
}

/** Holds `value` to a schema; the failure names what and where (ajv's error text). */
function expectMatches(schema: Json, value: unknown, what: string): void {
  const validate = ajv.compile(schema);
  const valid = validate(value);
  expect(valid ? what : `${what}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(value).slice(0, 400)}`).toBe(what);
}

/** The real answer of `METHOD path` against the document's response for its status. */
function expectDocumented<T>(method: string, path: string, answer: Answer<T>): T {
  expectMatches(responseSchema(method, path, answer.status), answer.body, `${method} ${path} ${answer.status}`);
  return (answer.body as { data: T }).data;
}

const api = () => `${system().baseUrl}/api/v1/svc`;
const get = <T>(path: string) => call<T>(`${api()}${path}`, { headers: bearer(token) });
const send = <T>(method: string, path: string, json?: unknown) =>
  call<T>(`${api()}${path}`, { method, headers: bearer(token), ...(json === undefined ? {} : { json }) });

beforeAll(async () => {
  ({ runs, account, repoId } = await newRunsUser(system().baseUrl, 3));
  token = runs.token;
}, 60_000);

describe('GET /api/v1/svc/openapi.json is public documentation: no token, JSON, cacheable', () => {
  test('answered without a token: OpenAPI 3.1, the server /api/v1/svc, with X-Request-Id and Cache-Control', async () => {
    const response = await fetch(`${api()}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    document = (await response.json()) as Json;
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: '/api/v1/svc' }]);
  });

  test('revalidating with its ETag answers 304 with no body', async () => {
    const first = await fetch(`${api()}/openapi.json`);
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[\w-]+"$/);
    // As a cache revalidates. (fetch itself would add `Cache-Control: no-cache` to a conditional request, which asks for the full answer.)
    const again = await fetch(`${api()}/openapi.json`, { headers: { 'if-none-match': etag, 'cache-control': 'max-age=0' } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });
});

describe('every read route’s real answer matches the document’s response schema', () => {
  test('GET /repos, /agents, /models, /sandboxes, /automations and /mcp/servers', async () => {
    const repos = expectDocumented('GET', '/repos', await get<{ repos: unknown[] }>('/repos?limit=5&q=')).repos;
    expect(repos.length).toBeGreaterThan(0);
    expect(expectDocumented('GET', '/agents', await get<{ agents: unknown[] }>('/agents')).agents.length).toBeGreaterThan(0);
    expectDocumented('GET', '/models', await get('/models'));
    expectDocumented('GET', '/sandboxes', await get(`/sandboxes?repo_id=${encodeURIComponent(repoId)}&limit=10`));
    expectDocumented('GET', '/automations', await get('/automations?limit=5'));
    // A development account has the two example servers: the command shape and the URL shape.
    const servers = expectDocumented('GET', '/mcp/servers', await get<{ servers: { config: Json }[] }>('/mcp/servers')).servers;
    expect(servers.map((server) => ('command' in server.config ? 'command' : 'url')).sort()).toEqual(['command', 'url']);
  });

  test('an automation: POST /automations (201), GET it, validate it, its runs, a run it does not have (null)', async () => {
    const created = expectDocumented(
      'POST',
      '/automations',
      await send<{ automation: { id: string } }>('POST', '/automations', { installationId: account.installationId, name: 'openapi' }),
    );
    const id = encodeURIComponent(created.automation.id);
    expectDocumented('GET', '/automations/{automationId}', await get(`/automations/${id}`));
    expectDocumented('POST', '/automations/{automationId}/validate', await send('POST', `/automations/${id}/validate`, {}));
    expectDocumented('GET', '/automations/{automationId}/runs', await get(`/automations/${id}/runs?limit=5`));
    const none = expectDocumented('GET', '/automations/{automationId}/runs/{runId}', await get<{ run: null }>(`/automations/${id}/runs/no-such-run`));
    expect(none.run).toBeNull();
  });
});

describe('an automation run through the document: trigger (202), its runs, its detail once it ended, cancel of the ended run', () => {
  test('a published start → agent → end automation triggered: every answer matches its schema', async () => {
    // Its own user and PAT: waiting on the run polls.
    const c = await automationClient(system().baseUrl);
    const graph = graphOf(
      [
        ['start', 'start'],
        ['work', 'agent', { agentId: c.agentId, prompt: '@say documented' }],
        ['end', 'end'],
      ],
      [
        ['start', 'work'],
        ['work', 'end'],
      ],
    );
    const id = encodeURIComponent(await publishAutomation(c, graph));
    const post = (path: string, headers: Record<string, string> = {}, json?: unknown) =>
      call(`${c.api}${path}`, { method: 'POST', headers: { ...c.auth, ...headers }, ...(json === undefined ? {} : { json }) });
    const trigger = await post(`/automations/${id}/trigger`, { 'idempotency-key': `openapi-${Date.now()}` }, { repoId: c.repoId, input: {} });
    const { run } = expectDocumented('POST', '/automations/{automationId}/trigger', trigger as Answer<{ run: { jobRunId: string } }>);
    const runId = encodeURIComponent(run.jobRunId);
    await untilRun(c, decodeURIComponent(id), run.jobRunId, 'ended', (current) => ['success', 'failed', 'cancelled'].includes(current.status));
    const runsPage = expectDocumented(
      'GET',
      '/automations/{automationId}/runs',
      await call<{ runs: unknown[] }>(`${c.api}/automations/${id}/runs`, { headers: c.auth }),
    );
    expect(runsPage.runs).toHaveLength(1);
    const detail = expectDocumented(
      'GET',
      '/automations/{automationId}/runs/{runId}',
      await call<{ run: { aiCalls: unknown[] } }>(`${c.api}/automations/${id}/runs/${runId}`, { headers: c.auth }),
    );
    expect(detail.run.aiCalls).toHaveLength(1);
    expectDocumented('POST', '/automations/{automationId}/runs/{runId}/cancel', await post(`/automations/${id}/runs/${runId}/cancel`));
    expectDocumented('POST', '/automations/events', await post('/automations/events', {}, { name: 'documented', data: { ok: true } }));
  }, 120_000);
});

describe('a run through the document: POST /runs, GET /runs/{runId}, its events as JSON and as Server-Sent Events, cancel, the sandbox’s logs', () => {
  let runId: string;

  test('POST /runs (202) answers a Run with replayed, as documented', async () => {
    const started = expectDocumented('POST', '/runs', await runs.start({ repoId, prompt: '@say documented\n@shell echo ok' }, `openapi-${Date.now()}`));
    runId = started.runId;
    expect(started.replayed).toBe(false);
    expectDocumented('GET', '/runs/{runId}', await runs.get(runId));
  });

  test('the event stream’s frames carry RunEvent and Run JSON as documented, and the JSON page matches its schema', async () => {
    const schema = responseSchema('GET', '/runs/{runId}/events', 200) as { properties: { data: { properties: { run: Json; events: { items: Json } } } } };
    const { run: runSchema, events } = schema.properties.data.properties;
    const stream = await readEventStream(`${api()}/runs/${encodeURIComponent(runId)}/events`, bearer(token));
    expect(stream.status).toBe(200);
    expect(responseSchema('GET', '/runs/{runId}/events', 200, 'text/event-stream')).toMatchObject({ type: 'string' });
    expect(stream.frames.some((frame) => frame.event === 'assistant_message')).toBe(true);
    for (const frame of stream.frames) expectMatches(frame.event === 'run' ? runSchema : events.items, JSON.parse(frame.data), `the ${frame.event} frame`);
    const page = expectDocumented('GET', '/runs/{runId}/events', await runs.events(runId, 200));
    expect(page.events.length).toBe(stream.frames.filter((frame) => frame.event !== 'run').length);
  });

  test('POST /runs/{runId}/cancel of the ended run, and GET /sandboxes/{sandboxId}/logs of its sandbox', async () => {
    const cancelled = expectDocumented('POST', '/runs/{runId}/cancel', await runs.cancel(runId));
    expect(cancelled.status).toBe('already_terminal');
    const sandboxId = cancelled.run.sandboxRecordId;
    expect(sandboxId).toEqual(expect.any(String));
    expectDocumented('GET', '/sandboxes/{sandboxId}/logs', await get(`/sandboxes/${encodeURIComponent(sandboxId ?? '')}/logs`));
  });
});

describe('the error envelopes match the document’s error responses, code by status', () => {
  test('401 without a token, 403 with a read-only token on a write route, 404 for a run that is not the caller’s, 400 without Idempotency-Key', async () => {
    const anonymous = await call(`${api()}/repos`);
    expect(anonymous.status).toBe(401);
    expectDocumented('GET', '/repos', anonymous);
    const readOnly = (await createToken(system().baseUrl, account, { name: 'read-only', scopes: ['read'] })).token;
    const forbidden = await call(`${api()}/runs`, { method: 'POST', headers: bearer(readOnly), json: { repoId, prompt: 'x' } });
    expect(forbidden.status).toBe(403);
    expectDocumented('POST', '/runs', forbidden);
    const missing = await get('/runs/no-such-run');
    expect(missing.status).toBe(404);
    expectDocumented('GET', '/runs/{runId}', missing);
    const keyless = await send('POST', '/runs', { repoId, prompt: '@say x' });
    expect(keyless.status).toBe(400);
    expectDocumented('POST', '/runs', keyless);
  });

  test('the document’s error schema refuses a code its status does not carry (the check can fail)', () => {
    const notFound = responseSchema('GET', '/runs/{runId}', 404);
    expect(ajv.validate(notFound, { ok: false, error: { code: 'NOT_FOUND', message: 'x' } })).toBe(true);
    expect(ajv.validate(notFound, { ok: false, error: { code: 'CONFLICT', message: 'x' } })).toBe(false);
  });
});
