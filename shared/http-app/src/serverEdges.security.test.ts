// The HTTP server's edge against hostile clients, over raw sockets on loopback: slow clients are
// answered and disconnected once their headers or their request take too long, a silent connection
// is closed, a long response is never cut; whatever Node's parser refuses is answered 400
// BAD_REQUEST in the contract's envelope (never a bare status line), and the connection closed.
// Each server gets timeouts of a few hundred milliseconds; the assertions are on what the client
// receives, the generous guards only catch a hang.
import { connect, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { createLogger } from '@ars/logger';
import {
  createHttpApp,
  mountRouters,
  ok,
  requestBody,
  Router,
  startHttpServer,
  MAX_HEADER_SIZE_BYTES,
  type HttpServerOptions,
  type RunningServer,
} from '@ars/http-app';

/** Long enough for any answer on a loaded 2-core machine; an answer that does not come by then is a hang. */
const HANG_GUARD_MS = 20_000;

let server: RunningServer | undefined;
const sockets: Socket[] = [];
/** Bodies the POST route received: a request answered at the edge must never reach it. */
let received: unknown[] = [];
/** The server's side of each connection, in the order they came. */
let serverSockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await server?.close();
  server = undefined;
  received = [];
  serverSockets = [];
});

function routes(): Router {
  const router = new Router();
  router.get('/things/:id', (ctx) => ok(ctx, { id: ctx.params.id }));
  router.post('/things', (ctx) => {
    received.push(requestBody(ctx));
    ok(ctx, { created: true }, 201);
  });
  // Server-Sent Events: a frame every 250 ms, eight in all, twice as long as the request timeout.
  router.get('/stream', (ctx) => {
    const stream = new PassThrough();
    ctx.type = 'text/event-stream';
    ctx.body = stream;
    let sent = 0;
    const timer = setInterval(() => {
      sent += 1;
      stream.write(`data: ${sent}\n\n`);
      if (sent === 8) {
        clearInterval(timer);
        stream.end();
      }
    }, 250);
  });
  return router;
}

async function start(options: HttpServerOptions = {}): Promise<RunningServer> {
  const app = createHttpApp({ service: 'edge-test', logger: createLogger({ service: 'edge-test', level: 'silent' }) });
  mountRouters(app, routes());
  server = await startHttpServer(app, { port: 0, ...options });
  server.server.on('connection', (socket: Socket) => serverSockets.push(socket));
  return server;
}

/** Short timeouts of the server's edge, so a test waits on them and not on the defaults. */
const SHORT = { headersTimeoutMs: 300, requestTimeoutMs: 600, connectionsCheckingIntervalMs: 50 } as const;

interface RawAnswer {
  /** Everything the server sent until it ended the connection. */
  raw: Buffer;
  /** The server ended its side (FIN) or closed the connection: the client is not left waiting. */
  closedByServer: boolean;
}

/**
 * Opens a raw connection, lets `speak` write what it will, and collects everything until the server
 * ends the connection. `allowHalfOpen` keeps the client's side open after that, to send more.
 */
function exchange(port: number, speak: (socket: Socket) => void | Promise<void>, options: { allowHalfOpen?: boolean } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: options.allowHalfOpen ?? false });
    sockets.push(socket);
    const chunks: Buffer[] = [];
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no end of the connection within ${HANG_GUARD_MS} ms; received: ${JSON.stringify(Buffer.concat(chunks).toString('latin1'))}`));
    }, HANG_GUARD_MS);
    const done = (): void => {
      clearTimeout(guard);
      resolve({ raw: Buffer.concat(chunks), closedByServer: true });
    };
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('end', done);
    // A reset after the answer (the server closing with bytes of ours unread) still ends the exchange.
    socket.once('close', done);
    socket.on('error', () => undefined);
    socket.once('connect', () => void Promise.resolve(speak(socket)).catch(reject));
  });
}

interface ParsedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One HTTP/1.1 response, its body as long as Content-Length says, nothing after it. */
function parseResponse(raw: Buffer): ParsedResponse {
  const text = raw.toString('latin1');
  const end = text.indexOf('\r\n\r\n');
  expect(end).toBeGreaterThan(0);
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine);
  expect(status).not.toBeNull();
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = raw.subarray(end + 4);
  expect(headers['content-length']).toBe(String(body.length));
  return { status: Number(status?.[1]), headers, body: body.toString('utf8') };
}

/** The answer every edge refusal gets: 400 BAD_REQUEST in the envelope, complete, and the connection closed. */
function expectEnvelopeRefusal(answer: RawAnswer, message: RegExp): void {
  expect(answer.closedByServer).toBe(true);
  const response = parseResponse(answer.raw);
  expect(response.status).toBe(400);
  expect(response.headers.connection).toBe('close');
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  const envelope = JSON.parse(response.body) as { ok: boolean; error: { code: string; message: string } };
  expect(envelope).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: expect.stringMatching(message) } });
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('a client that sends its headers too slowly is answered 400 BAD_REQUEST in the envelope and disconnected', () => {
  test('partial headers, then nothing: the answer names the headers timeout', async () => {
    const { port } = await start(SHORT);
    const answer = await exchange(port, (socket) => void socket.write('GET /things/1 HTTP/1.1\r\nHost: edge\r\nX-Slow: '));
    expectEnvelopeRefusal(answer, /^Request not received in time: its headers must arrive within 300 ms and the whole request within 600 ms$/);
  });

  test('headers dripped a byte at a time, each byte well inside any idle timer: still answered once the headers timeout passes', async () => {
    const { port } = await start(SHORT);
    const answer = await exchange(port, async (socket) => {
      for (const byte of 'GET /things/1 HTTP/1.1\r\nHost: edge\r\nX-Drip: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa') {
        if (socket.destroyed || socket.readableEnded) return;
        socket.write(byte);
        await pause(20);
      }
    });
    expectEnvelopeRefusal(answer, /^Request not received in time/);
  });
});

describe('a client that sends a body shorter than its Content-Length is answered 400 BAD_REQUEST in the envelope once the request timeout passes, and no handler sees the request', () => {
  test('10 of 100 bytes, then nothing; the rest sent after the answer reaches no route', async () => {
    const { port } = await start(SHORT);
    let socketOf: Socket | undefined;
    const answer = await exchange(
      port,
      (socket) => {
        socketOf = socket;
        socket.write('POST /things HTTP/1.1\r\nHost: edge\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"a');
      },
      { allowHalfOpen: true },
    );
    expectEnvelopeRefusal(answer, /^Request not received in time/);
    // Whatever the client sends now is never parsed into a request: the server stopped reading and
    // closes its side of the connection (after a short linger) without handing the route anything.
    const [serverSide] = serverSockets;
    socketOf?.end(`${'b'.repeat(88)}"}`);
    await new Promise<void>((resolve) => (serverSide?.closed ? resolve() : serverSide?.once('close', () => resolve())));
    expect(received).toEqual([]);
  });
});

describe('a connection that sends nothing is closed once the headers timeout passes', () => {
  test('connected and silent: the server closes it', async () => {
    const { port } = await start(SHORT);
    const answer = await exchange(port, () => undefined);
    expect(answer.closedByServer).toBe(true);
    expect(answer.raw.length).toBe(0);
  });

  test("timed out by Node's own connection check first (a request timeout on a connection that sent nothing): closed without an answer too", async () => {
    const running = await start(SHORT);
    const answer = exchange(running.port, async () => {
      // As Node's check reports it (socketOnError → 'clientError'), well before this server's own silence timer.
      while (serverSockets.length === 0) await pause(5);
      running.server.emit('clientError', Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), serverSockets[0]);
    });
    const closed = await answer;
    expect(closed.closedByServer).toBe(true);
    expect(closed.raw.length).toBe(0);
  });
});

describe('the request timeout covers receiving the request only: a response longer than it (an SSE stream) is never cut', () => {
  // Timeouts of a second, not less: this process is both client and server, and a loaded machine can
  // hold its event loop between the connect and the request's first byte for a good part of one.
  test('eight frames over about 2 s, against a request timeout of 1 s, all arrive', async () => {
    const { url } = await start({ headersTimeoutMs: 1_000, requestTimeoutMs: 1_000, connectionsCheckingIntervalMs: 20 });
    const response = await fetch(`${url}/stream`, { headers: { accept: 'text/event-stream' }, signal: AbortSignal.timeout(HANG_GUARD_MS) });
    expect(response.status).toBe(200);
    const frames = (await response.text()).split('\n\n').filter(Boolean);
    expect(frames).toEqual(['data: 1', 'data: 2', 'data: 3', 'data: 4', 'data: 5', 'data: 6', 'data: 7', 'data: 8']);
  });
});

describe('an idle keep-alive connection is not cut by the headers timeout: its next request is served', () => {
  test('idle for several headers timeouts between two requests on one socket', async () => {
    const { port } = await start({ headersTimeoutMs: 1_000, requestTimeoutMs: 1_000, connectionsCheckingIntervalMs: 20 });
    const socket = connect({ host: '127.0.0.1', port });
    sockets.push(socket);
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    const responses = (count: number): Promise<void> =>
      new Promise((resolve, reject) => {
        const guard = setTimeout(() => reject(new Error(`fewer than ${count} responses: ${JSON.stringify(text)}`)), HANG_GUARD_MS);
        const check = (): void => {
          if ((text.match(/HTTP\/1\.1 200 OK/g) ?? []).length >= count) {
            clearTimeout(guard);
            socket.off('data', check);
            resolve();
          }
        };
        socket.on('data', check);
        socket.once('close', () => reject(new Error(`the server closed the connection after ${JSON.stringify(text)}`)));
        check();
      });
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('GET /things/1 HTTP/1.1\r\nHost: edge\r\n\r\n');
    await responses(1);
    // Idle well past the headers timeout, over many checks of it: the next request's clock starts at its first byte.
    await pause(3_000);
    socket.write('GET /things/2 HTTP/1.1\r\nHost: edge\r\n\r\n');
    await responses(2);
    expect(text).toContain('{"ok":true,"data":{"id":"2"}}');
  });
});

describe('whatever the HTTP parser refuses is answered 400 BAD_REQUEST in the envelope, complete, and the connection closed', () => {
  test.each([
    ['a malformed request line', 'NOT A REQUEST LINE AT ALL\r\n\r\n', /^Malformed HTTP request$/],
    ['a method that does not exist', 'FETCH /things/1 HTTP/1.1\r\nHost: edge\r\n\r\n', /^Malformed HTTP request$/],
    ['a control character in a header value', 'GET /things/1 HTTP/1.1\r\nHost: edge\r\nX-Bad: a\u0001b\r\n\r\n', /^Malformed HTTP request$/],
    ['a header name with a space', 'GET /things/1 HTTP/1.1\r\nHost: edge\r\nX Bad: a\r\n\r\n', /^Malformed HTTP request$/],
    [
      'both Content-Length and Transfer-Encoding',
      'POST /things HTTP/1.1\r\nHost: edge\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}',
      /^Malformed HTTP request$/,
    ],
    ['an HTTP version that does not exist', 'GET /things/1 HTTP/7.3\r\nHost: edge\r\n\r\n', /^Malformed HTTP request$/],
    ['a URL longer than the header limit', `GET /things/${'a'.repeat(MAX_HEADER_SIZE_BYTES + 1024)} HTTP/1.1\r\nHost: edge\r\n\r\n`, /16384-byte limit$/],
    [
      'a header longer than the header limit',
      `GET /things/1 HTTP/1.1\r\nHost: edge\r\nX-Long: ${'a'.repeat(MAX_HEADER_SIZE_BYTES + 1024)}\r\n\r\n`,
      /16384-byte limit$/,
    ],
    [
      'many headers adding up past the header limit',
      `GET /things/1 HTTP/1.1\r\nHost: edge\r\n${Array.from({ length: 400 }, (_, i) => `X-Many-${i}: ${'a'.repeat(60)}\r\n`).join('')}\r\n`,
      /16384-byte limit$/,
    ],
  ])('%s', async (_what, request, message) => {
    const { port } = await start();
    const answer = await exchange(port, (socket) => void socket.write(request));
    expectEnvelopeRefusal(answer, message);
    expect(received).toEqual([]);
  });

  test('a refused HEAD gets the headers alone: no body after them', async () => {
    const { port } = await start();
    const answer = await exchange(
      port,
      (socket) => void socket.write(`HEAD /things/${'a'.repeat(MAX_HEADER_SIZE_BYTES + 1024)} HTTP/1.1\r\nHost: edge\r\n\r\n`),
    );
    const text = answer.raw.toString('latin1');
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(text).toMatch(/\r\nContent-Length: \d+\r\n/);
    expect(text.endsWith('\r\n\r\n')).toBe(true);
  });

  test('a URL just inside the limit still reaches the app (its own 404 envelope)', async () => {
    const { url } = await start();
    const response = await fetch(`${url}/nowhere/${'a'.repeat(MAX_HEADER_SIZE_BYTES - 1024)}`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: expect.stringMatching(/^No route for GET \/nowhere\//) } });
  });
});
