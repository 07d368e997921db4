// The model gateway against a provider on this machine (a plain HTTP server standing in for OpenAI or
// Anthropic, which are outside): what passes, what is refused, the run's credential, the usage it
// counts from the provider's answers, the budget, and that a stream flows as it comes.
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalAddress, ModelGateway, upstreamUrl, type ModelDoor, type ModelGatewaySettings } from './modelGateway.js';

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let provider: Server;
let providerUrl: string;
const received: Received[] = [];
/** The next answers of the provider, in order (else its default answer). */
const answers: { type: string; parts: string[]; hold?: boolean }[] = [];
/** Resolved when the provider sees the client of a held stream go away. */
let heldStreamClosed: Promise<void> = Promise.resolve();

beforeAll(async () => {
  provider = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const scripted = answers.shift();
      if (scripted) {
        res.writeHead(200, { 'content-type': scripted.type });
        for (const part of scripted.parts) res.write(part);
        if (scripted.hold) {
          heldStreamClosed = new Promise((resolve) => res.on('close', () => resolve()));
          return;
        }
        res.end();
        return;
      }
      if (body.includes('"hold"')) {
        // The first event at once, then nothing until the client leaves.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: response.created\ndata: {}\n\n');
        heldStreamClosed = new Promise((resolve) => res.on('close', () => resolve()));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req_1', connection: 'keep-alive' });
      res.end('event: response.completed\ndata: {"ok":true}\n\n');
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
});

afterAll(() => {
  provider.closeAllConnections();
  provider.close();
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

const PROVIDER_KEYS = { responses: 'sk-company-openai', messages: 'sk-ant-company' };

function gatewayTo(upstreams: ModelGatewaySettings['upstreams'], runTokenBudget: number | null = null): ModelGateway {
  return new ModelGateway({ upstreams, providerKeys: PROVIDER_KEYS, runTokenBudget });
}

/**
 * One request through a door, over TCP or its Unix socket, read to the end; with the door's credential
 * unless headers say otherwise; over TCP from `localAddress` when given (another loopback address plays another Pod).
 */
function call(
  door: ModelDoor,
  path: string,
  body: string,
  headers: Record<string, string> = { authorization: `Bearer ${door.credential}` },
  method = 'POST',
  localAddress?: string,
): Promise<Answer> {
  const target = door.address.startsWith('http')
    ? { host: '127.0.0.1', port: Number(new URL(door.address).port), ...(localAddress !== undefined ? { localAddress } : {}) }
    : { socketPath: door.address };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ ...target, path, method, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('only the two model APIs pass, each to its own provider', () => {
  const upstreams = { responses: 'https://api.openai.com/v1', messages: 'https://api.anthropic.com/' };

  test('POST /v1/responses goes to OPENAI_BASE_URL/responses; POST /v1/messages to ANTHROPIC_BASE_URL/v1/messages with its query', () => {
    expect(upstreamUrl(upstreams, 'POST', '/v1/responses')).toEqual({ api: 'responses', url: 'https://api.openai.com/v1/responses' });
    expect(upstreamUrl(upstreams, 'POST', '/v1/messages?beta=true')).toEqual({ api: 'messages', url: 'https://api.anthropic.com/v1/messages?beta=true' });
  });

  test('any other method or path is refused: GET, /v1/models, /v1/responses/x, a path that climbs', () => {
    expect(upstreamUrl(upstreams, 'GET', '/v1/responses')).toBeNull();
    expect(upstreamUrl(upstreams, 'POST', '/v1/models')).toBeNull();
    expect(upstreamUrl(upstreams, 'POST', '/v1/responses/x')).toBeNull();
    expect(upstreamUrl(upstreams, 'POST', '/v1/../admin')).toBeNull();
  });
});

describe('a request is passed through as the CLI sent it, with the company key in place of the run credential', () => {
  let gateway: ModelGateway;
  let door: ModelDoor;
  beforeAll(async () => {
    gateway = gatewayTo({ responses: `${providerUrl}/v1`, messages: providerUrl });
    door = await gateway.open({ loopbackPort: 0 });
  });
  afterAll(async () => {
    await door.close();
    await gateway.close();
  });

  test('the body reaches the provider; the credential is replaced by the key; hop-by-hop headers do not pass; status, type and body come back', async () => {
    const answer = await call(door, '/v1/responses', '{"model":"m","stream":true}', {
      authorization: `Bearer ${door.credential}`,
      'proxy-connection': 'x',
      'openai-beta': 'responses=v1',
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/event-stream');
    expect(answer.headers['x-request-id']).toBe('req_1');
    expect(answer.body).toBe('event: response.completed\ndata: {"ok":true}\n\n');
    const seen = received.at(-1);
    expect(seen).toMatchObject({ method: 'POST', url: '/v1/responses', body: '{"model":"m","stream":true}' });
    expect(seen?.headers.authorization).toBe(`Bearer ${PROVIDER_KEYS.responses}`);
    expect(seen?.headers['x-api-key']).toBeUndefined();
    expect(seen?.headers['openai-beta']).toBe('responses=v1');
    expect(seen?.headers['proxy-connection']).toBeUndefined();
  });

  test('a Messages call keeps its query and gets the Anthropic key as x-api-key (the credential sent as x-api-key too)', async () => {
    await call(door, '/v1/messages?beta=true', '{}', { 'x-api-key': door.credential });
    const seen = received.at(-1);
    expect(seen?.url).toBe('/v1/messages?beta=true');
    expect(seen?.headers['x-api-key']).toBe(PROVIDER_KEYS.messages);
    expect(seen?.headers.authorization).toBeUndefined();
  });

  test('another path answers 404 in the API error shape and reaches no provider', async () => {
    const before = received.length;
    const answer = await call(door, '/v1/models', '', {}, 'GET');
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toEqual({ type: 'error', error: { type: 'not_found_error', message: expect.stringContaining('/v1/models') } });
    expect(received.length).toBe(before);
  });

  test('the first event of a held stream arrives before the stream ends; the client leaving ends the provider’s request', async () => {
    const target = { host: '127.0.0.1', port: Number(new URL(door.address).port) };
    const first = await new Promise<string>((resolve, reject) => {
      const req = httpRequest({ ...target, path: '/v1/responses', method: 'POST', headers: { authorization: `Bearer ${door.credential}` } }, (res) => {
        res.once('data', (chunk: Buffer) => {
          resolve(chunk.toString('utf8'));
          req.destroy();
        });
      });
      req.on('error', (error) => (error.message === 'socket hang up' ? undefined : reject(error)));
      req.end('{"hold":true}');
    });
    expect(first).toBe('event: response.created\ndata: {}\n\n');
    await heldStreamClosed;
  });
});

describe("a run's credential is valid on its own door only, while the run lasts", () => {
  test('no credential, a wrong one, or another door’s is refused 401 in the API’s shape and reaches no provider', async () => {
    const gateway = gatewayTo({ responses: `${providerUrl}/v1`, messages: providerUrl });
    const mine = await gateway.open({ loopbackPort: 0 });
    const theirs = await gateway.open({ loopbackPort: 0 });
    try {
      expect(mine.credential).not.toBe(theirs.credential);
      const before = received.length;
      const none = await call(mine, '/v1/responses', '{}', {});
      const wrong = await call(mine, '/v1/messages', '{}', { 'x-api-key': `${mine.credential}x` });
      const other = await call(mine, '/v1/responses', '{}', { authorization: `Bearer ${theirs.credential}` });
      expect([none.status, wrong.status, other.status]).toEqual([401, 401, 401]);
      expect(JSON.parse(none.body).error).toMatchObject({ type: 'authentication_error', message: expect.stringContaining('credential was refused') });
      expect(JSON.parse(wrong.body)).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
      expect(received.length).toBe(before);
      expect((await call(theirs, '/v1/responses', '{}')).status).toBe(200);
    } finally {
      await mine.close();
      await theirs.close();
      await gateway.close();
    }
  });

  test('once the door is closed (the run ended) its credential opens nothing: the socket is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ars-model-gateway-'));
    const gateway = gatewayTo({ responses: `${providerUrl}/v1`, messages: providerUrl });
    try {
      const door = await gateway.open({ socketPath: join(dir, 'model.sock') });
      expect((await call(door, '/v1/responses', '{}')).status).toBe(200);
      await door.close();
      await expect(call(door, '/v1/responses', '{}')).rejects.toThrow(/ENOENT/);
    } finally {
      await gateway.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the run's usage is what the provider reported in its answers", () => {
  let gateway: ModelGateway;
  beforeAll(() => {
    gateway = gatewayTo({ responses: `${providerUrl}/v1`, messages: providerUrl });
  });
  afterAll(() => gateway.close());

  test('Responses: response.completed usage (cached included in input); Messages: message_start input + cache, message_delta output; summed over answers', async () => {
    const door = await gateway.open({ loopbackPort: 0 });
    try {
      expect(door.usage()).toBeNull();
      answers.push({
        type: 'text/event-stream',
        parts: [
          'event: response.created\ndata: {"type":"response.created","response":{"usage":null}}\n\n',
          'event: response.completed\ndata: {"type":"response.completed","response":{"usage":{"input_tokens":120,"input_tokens_details":{"cached_tokens":100},"output_tokens":7}}}\n\n',
        ],
      });
      await call(door, '/v1/responses', '{}');
      expect(door.usage()).toEqual({ inputTokens: 120, cachedInputTokens: 100, outputTokens: 7 });
      answers.push({
        type: 'text/event-stream',
        parts: [
          'event: message_start\r\ndata: {"type":"message_start","message":{"usage":{"input_tokens":5,"cache_read_input_tokens":40,"cache_creation_input_tokens":3,"output_tokens":1}}}\r\n\r\n',
          'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":',
          '30}}\n\n',
        ],
      });
      await call(door, '/v1/messages', '{}', { 'x-api-key': door.credential });
      expect(door.usage()).toEqual({ inputTokens: 120 + 48, cachedInputTokens: 140, outputTokens: 37 });
      answers.push({ type: 'application/json', parts: ['{"id":"msg","usage":{"input_tokens":2,', '"output_tokens":3}}'] });
      await call(door, '/v1/messages', '{}', { 'x-api-key': door.credential });
      expect(door.usage()).toEqual({ inputTokens: 170, cachedInputTokens: 140, outputTokens: 40 });
    } finally {
      await door.close();
    }
  });

  test('an answer the client leaves mid-stream still counts what the provider had reported', async () => {
    const door = await gateway.open({ loopbackPort: 0 });
    try {
      answers.push({
        type: 'text/event-stream',
        parts: ['event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":900,"output_tokens":1}}}\n\n'],
        hold: true,
      });
      const target = { host: '127.0.0.1', port: Number(new URL(door.address).port) };
      await new Promise<void>((resolve) => {
        const req = httpRequest({ ...target, path: '/v1/messages', method: 'POST', headers: { 'x-api-key': door.credential } }, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', () => undefined);
        req.end('{}');
      });
      await heldStreamClosed;
      expect(door.usage()).toEqual({ inputTokens: 900, cachedInputTokens: 0, outputTokens: 1 });
    } finally {
      await door.close();
    }
  });
});

describe('RUN_TOKEN_BUDGET: past it the run is told once and its door refuses', () => {
  test('the answer that passes the budget is delivered, the listener hears it once, the next request is 403 and reaches no provider', async () => {
    const gateway = gatewayTo({ responses: `${providerUrl}/v1`, messages: providerUrl }, 100);
    const door = await gateway.open({ loopbackPort: 0 });
    const spent: number[] = [];
    door.onBudgetSpent((usage, budget) => spent.push(usage.inputTokens + usage.outputTokens, budget));
    try {
      answers.push({ type: 'application/json', parts: ['{"usage":{"input_tokens":60,"output_tokens":30}}'] });
      expect((await call(door, '/v1/responses', '{}')).status).toBe(200);
      expect(spent).toEqual([]);
      answers.push({ type: 'application/json', parts: ['{"usage":{"input_tokens":20,"output_tokens":5}}'] });
      expect((await call(door, '/v1/responses', '{}')).status).toBe(200);
      expect(spent).toEqual([115, 100]);
      const before = received.length;
      const refused = await call(door, '/v1/responses', '{}');
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body).error.message).toBe("the run's token budget of 100 tokens is spent");
      expect(received.length).toBe(before);
      expect(spent).toEqual([115, 100]);
    } finally {
      await door.close();
      await gateway.close();
    }
  });
});

describe('an unreachable provider is a 502 in the shape of the API called, naming the cause', () => {
  test('Responses: {error: {message, type: server_error}}; Messages: {type: error, error: {type: api_error, message}}', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const gateway = gatewayTo({ responses: `http://127.0.0.1:${port}/v1`, messages: `http://127.0.0.1:${port}` });
    const door = await gateway.open({ loopbackPort: 0 });
    try {
      const responses = await call(door, '/v1/responses', '{}');
      expect(responses.status).toBe(502);
      expect(JSON.parse(responses.body).error).toMatchObject({
        type: 'server_error',
        message: expect.stringMatching(new RegExp(`^the model provider at http://127\\.0\\.0\\.1:${port} could not be reached: .*ECONNREFUSED`)),
      });
      const messages = await call(door, '/v1/messages', '{}');
      expect(messages.status).toBe(502);
      expect(JSON.parse(messages.body)).toMatchObject({
        type: 'error',
        error: { type: 'api_error', message: expect.stringContaining('could not be reached') },
      });
    } finally {
      await door.close();
      await gateway.close();
    }
  });
});

describe('on a Unix socket, only its owner may connect, and the socket is gone once closed', () => {
  test('mode 0600, owned by the sandbox uid given; removed on close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ars-model-gateway-'));
    const gateway = gatewayTo({ responses: `${providerUrl}/v1`, messages: providerUrl });
    try {
      const socketPath = join(dir, 'model.sock');
      const door = await gateway.open({ socketPath, owner: { uid: 2_000_123, gid: 2_000_123 } });
      expect(statSync(socketPath).mode & 0o777).toBe(0o600);
      expect(statSync(socketPath).uid).toBe(2_000_123);
      expect((await call(door, '/v1/messages', '{}')).status).toBe(200);
      await door.close();
      expect(() => statSync(socketPath)).toThrow(/ENOENT/);
    } finally {
      await gateway.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the shared listener (a Pod's door): a request is served by the door whose credential it carries, and only from that door's peer address", () => {
  let gateway: ModelGateway;
  beforeEach(async () => {
    gateway = gatewayTo({ responses: `${providerUrl}/v1`, messages: providerUrl }, 100);
    await gateway.listenShared({ host: '127.0.0.1', port: 0 });
  });
  afterEach(() => gateway.close());

  test('a credential from another address than its peer (a copy in another Pod) is refused 401 and reaches no provider; from the peer it passes with the company key', async () => {
    const door = await gateway.open({ shared: { peerAddress: '127.0.0.1' } });
    const before = received.length;
    const stolen = await call(door, '/v1/responses', '{}', undefined, 'POST', '127.0.0.2');
    expect(stolen.status).toBe(401);
    expect(JSON.parse(stolen.body).error).toMatchObject({ type: 'authentication_error', message: expect.stringContaining('credential was refused') });
    expect(received.length).toBe(before);
    const own = await call(door, '/v1/messages', '{}', { 'x-api-key': door.credential }, 'POST', '127.0.0.1');
    expect(own.status).toBe(200);
    expect(received.at(-1)?.headers['x-api-key']).toBe(PROVIDER_KEYS.messages);
    await door.close();
  });

  test('a door without a peer address answers its credential from any address', async () => {
    const door = await gateway.open({ shared: { peerAddress: null } });
    expect((await call(door, '/v1/responses', '{}', undefined, 'POST', '127.0.0.2')).status).toBe(200);
    await door.close();
  });

  test('an unknown credential, none, or a closed door’s is refused 401; the listener still serves the doors left open', async () => {
    const closing = await gateway.open({ shared: { peerAddress: '127.0.0.1' } });
    const staying = await gateway.open({ shared: { peerAddress: '127.0.0.1' } });
    expect(closing.address).toBe(staying.address);
    expect((await call(closing, '/v1/responses', '{}')).status).toBe(200);
    await closing.close();
    const before = received.length;
    expect((await call(closing, '/v1/responses', '{}')).status).toBe(401);
    expect((await call(closing, '/v1/responses', '{}', { authorization: 'Bearer ars-run-guessed' })).status).toBe(401);
    expect((await call(closing, '/v1/responses', '{}', {})).status).toBe(401);
    expect(received.length).toBe(before);
    expect((await call(staying, '/v1/responses', '{}')).status).toBe(200);
    await staying.close();
  });

  test("two doors' credentials each reach only their own run's usage; the budget is each door's own", async () => {
    const first = await gateway.open({ shared: { peerAddress: '127.0.0.1' } });
    const second = await gateway.open({ shared: { peerAddress: '127.0.0.1' } });
    const spent: string[] = [];
    first.onBudgetSpent(() => spent.push('first'));
    second.onBudgetSpent(() => spent.push('second'));
    answers.push({ type: 'application/json', parts: ['{"usage":{"input_tokens":100,"output_tokens":10}}'] });
    await call(first, '/v1/responses', '{}');
    answers.push({ type: 'application/json', parts: ['{"usage":{"input_tokens":3,"output_tokens":4}}'] });
    await call(second, '/v1/messages', '{}', { 'x-api-key': second.credential });
    expect(first.usage()).toEqual({ inputTokens: 100, cachedInputTokens: 0, outputTokens: 10 });
    expect(second.usage()).toEqual({ inputTokens: 3, cachedInputTokens: 0, outputTokens: 4 });
    // The first run's budget of 100 is spent: its door refuses, the second's still passes.
    expect(spent).toEqual(['first']);
    expect((await call(first, '/v1/responses', '{}')).status).toBe(403);
    expect((await call(second, '/v1/responses', '{}')).status).toBe(200);
    await first.close();
    await second.close();
  });

  test('only the two model APIs pass here too: another path is 404 and reaches no provider', async () => {
    const door = await gateway.open({ shared: { peerAddress: '127.0.0.1' } });
    const before = received.length;
    expect((await call(door, '/v1/models', '', undefined, 'GET')).status).toBe(404);
    expect(received.length).toBe(before);
    await door.close();
  });

  test('closing a door cuts its answer in flight on the shared listener', async () => {
    const door = await gateway.open({ shared: { peerAddress: '127.0.0.1' } });
    const target = { host: '127.0.0.1', port: Number(new URL(door.address).port) };
    const ended = new Promise<string>((resolve) => {
      const req = httpRequest({ ...target, path: '/v1/responses', method: 'POST', headers: { authorization: `Bearer ${door.credential}` } }, (res) => {
        res.once('data', () => void door.close());
        res.on('error', () => resolve('cut'));
        res.on('end', () => resolve('ended'));
        res.on('close', () => resolve('cut'));
      });
      req.on('error', () => resolve('cut'));
      req.end('{"hold":true}');
    });
    expect(await ended).toBe('cut');
    await heldStreamClosed;
  });
});

describe('a shared door is only made where it can be served and bound to an address', () => {
  test('without listenShared, or with a peer that is not an IP address, open({shared}) is refused', async () => {
    const gateway = gatewayTo({ responses: `${providerUrl}/v1`, messages: providerUrl });
    try {
      await expect(gateway.open({ shared: { peerAddress: '127.0.0.1' } })).rejects.toThrow(/no shared listener/);
      await gateway.listenShared({ host: '127.0.0.1', port: 0 });
      await expect(gateway.open({ shared: { peerAddress: 'pod-a.example' } })).rejects.toThrow(/must be an IP address/);
      await expect(gateway.listenShared({ host: '127.0.0.1', port: 0 })).rejects.toThrow(/already listens/);
    } finally {
      await gateway.close();
    }
  });

  test('a peer address and a connection’s remote address compare in one spelling: IPv4-mapped IPv6 as IPv4, IPv6 compressed in lower case', () => {
    expect(canonicalAddress('::ffff:10.244.1.7')).toBe('10.244.1.7');
    expect(canonicalAddress('10.244.1.7')).toBe('10.244.1.7');
    expect(canonicalAddress('FD00:0:0:0::0A')).toBe('fd00::a');
    expect(canonicalAddress('fd00::a')).toBe('fd00::a');
  });
});

describe('what a provider keeps out of every sandbox: a value holding a company key', () => {
  test('a key inside a longer value counts (Bearer <key>, a config line); a short key only as the whole value; other values do not', () => {
    const gateway = new ModelGateway({
      upstreams: { responses: `${providerUrl}/v1`, messages: providerUrl },
      providerKeys: { responses: 'sk-company-openai-0123456789', messages: 'short' },
      runTokenBudget: null,
    });
    expect(gateway.holdsProviderKey('sk-company-openai-0123456789')).toBe(true);
    expect(gateway.holdsProviderKey('Bearer sk-company-openai-0123456789')).toBe(true);
    expect(gateway.holdsProviderKey('short')).toBe(true);
    expect(gateway.holdsProviderKey('/usr/share/shortcuts')).toBe(false);
    expect(gateway.holdsProviderKey('ars-run-abc')).toBe(false);
    void gateway.close();
  });
});
