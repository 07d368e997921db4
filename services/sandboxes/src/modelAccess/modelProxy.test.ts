// The model proxy against a provider on this machine (a plain HTTP server standing in for OpenAI or
// Anthropic, which are outside): what passes, what is refused, and that a stream flows as it comes.
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startModelProxy, upstreamUrl, type ModelProxy } from './modelProxy.js';

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let provider: Server;
let providerUrl: string;
const received: Received[] = [];
/** Resolved when the provider sees the client of a held stream go away. */
let heldStreamClosed: Promise<void> = Promise.resolve();

beforeAll(async () => {
  provider = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
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

/** One request through the proxy, over TCP or its Unix socket, read to the end. */
function call(proxy: ModelProxy, path: string, body: string, headers: Record<string, string> = {}, method = 'POST'): Promise<Answer> {
  const target = proxy.address.startsWith('http') ? { host: '127.0.0.1', port: Number(new URL(proxy.address).port) } : { socketPath: proxy.address };
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

describe('a request is passed through as the CLI sent it, and the answer comes back as the provider sent it', () => {
  let proxy: ModelProxy;
  beforeAll(async () => {
    proxy = await startModelProxy({ loopbackPort: 0 }, { responses: `${providerUrl}/v1`, messages: providerUrl });
  });
  afterAll(() => proxy.close());

  test('the body and the credentials headers reach the provider; hop-by-hop headers do not; status, type and body come back', async () => {
    const answer = await call(proxy, '/v1/responses', '{"model":"m","stream":true}', {
      authorization: 'Bearer sk-1',
      'x-api-key': 'k-2',
      'proxy-connection': 'x',
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/event-stream');
    expect(answer.headers['x-request-id']).toBe('req_1');
    expect(answer.body).toBe('event: response.completed\ndata: {"ok":true}\n\n');
    const seen = received.at(-1);
    expect(seen).toMatchObject({ method: 'POST', url: '/v1/responses', body: '{"model":"m","stream":true}' });
    expect(seen?.headers.authorization).toBe('Bearer sk-1');
    expect(seen?.headers['x-api-key']).toBe('k-2');
    expect(seen?.headers['proxy-connection']).toBeUndefined();
  });

  test('a Messages call keeps its query', async () => {
    await call(proxy, '/v1/messages?beta=true', '{}');
    expect(received.at(-1)?.url).toBe('/v1/messages?beta=true');
  });

  test('another path answers 404 in the API error shape and reaches no provider', async () => {
    const before = received.length;
    const answer = await call(proxy, '/v1/models', '', {}, 'GET');
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toEqual({ type: 'error', error: { type: 'not_found_error', message: expect.stringContaining('/v1/models') } });
    expect(received.length).toBe(before);
  });

  test('the first event of a held stream arrives before the stream ends; the client leaving ends the provider’s request', async () => {
    const target = { host: '127.0.0.1', port: Number(new URL(proxy.address).port) };
    const first = await new Promise<string>((resolve, reject) => {
      const req = httpRequest({ ...target, path: '/v1/responses', method: 'POST' }, (res) => {
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

describe('an unreachable provider is a 502 in the shape of the API called, naming the cause', () => {
  test('Responses: {error: {message, type: server_error}}; Messages: {type: error, error: {type: api_error, message}}', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const proxy = await startModelProxy({ loopbackPort: 0 }, { responses: `http://127.0.0.1:${port}/v1`, messages: `http://127.0.0.1:${port}` });
    try {
      const responses = await call(proxy, '/v1/responses', '{}');
      expect(responses.status).toBe(502);
      expect(JSON.parse(responses.body).error).toMatchObject({
        type: 'server_error',
        message: expect.stringMatching(new RegExp(`^the model provider at http://127\\.0\\.0\\.1:${port} could not be reached: .*ECONNREFUSED`)),
      });
      const messages = await call(proxy, '/v1/messages', '{}');
      expect(messages.status).toBe(502);
      expect(JSON.parse(messages.body)).toMatchObject({
        type: 'error',
        error: { type: 'api_error', message: expect.stringContaining('could not be reached') },
      });
    } finally {
      await proxy.close();
    }
  });
});

describe('on a Unix socket, only its owner may connect, and the socket is gone once closed', () => {
  test('mode 0600; removed on close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ars-model-proxy-'));
    try {
      const socketPath = join(dir, 'model.sock');
      const proxy = await startModelProxy({ socketPath }, { responses: `${providerUrl}/v1`, messages: providerUrl });
      expect(statSync(socketPath).mode & 0o777).toBe(0o600);
      expect((await call(proxy, '/v1/messages', '{}')).status).toBe(200);
      await proxy.close();
      expect(() => statSync(socketPath)).toThrow(/ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
