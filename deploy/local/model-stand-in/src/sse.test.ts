import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chunks, parseSse, pause, sseFrame, SseWriter } from './sse.js';

describe('SSE framing', () => {
  test('one event line, one data line of JSON, a blank line; read back as sent', () => {
    const data = { type: 'response.output_text.delta', delta: 'line one\nline two "quoted" ✓' };
    const frame = sseFrame('response.output_text.delta', data);
    expect(frame).toBe(`event: response.output_text.delta\ndata: ${JSON.stringify(data)}\n\n`);
    // A newline in the text never breaks the frame: JSON escapes it.
    expect(frame.split('\n')).toHaveLength(4);
    expect(parseSse(frame + sseFrame('ping', {}))).toEqual([
      { event: 'response.output_text.delta', data },
      { event: 'ping', data: {} },
    ]);
  });

  test('the reader follows the format: comments skipped, data lines joined, `message` by default, CRLF', () => {
    expect(parseSse(': keep-alive\n\ndata: {"a":\ndata: 1}\n\r\nevent: x\r\ndata:{"b":2}\r\n\r\n')).toEqual([
      { event: 'message', data: { a: 1 } },
      { event: 'x', data: { b: 2 } },
    ]);
  });

  test('text streams in pieces that never split a character', () => {
    expect(chunks('')).toEqual([]);
    const text = `${'a'.repeat(63)}😀${'b'.repeat(70)}`;
    const parts = chunks(text);
    expect(parts.join('')).toBe(text);
    expect(parts[0]).toBe(`${'a'.repeat(63)}😀`);
    expect(parts.every((part) => !/[\uD800-\uDBFF]$/.test(part))).toBe(true);
  });
});

describe('a client that goes away', () => {
  let server: Server;
  let writer: Promise<SseWriter>;
  beforeEach(async () => {
    let handed: (w: SseWriter) => void = () => undefined;
    writer = new Promise((resolve) => {
      handed = resolve;
    });
    server = createServer((_req, res) => {
      const w = new SseWriter(res);
      void w.send('first', { n: 1 }).then(() => handed(w));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });
  afterEach(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  test('aborts the writer’s `gone` signal, which ends a pause at once; later sends are no-ops', async () => {
    const req = request({ port: (server.address() as AddressInfo).port, method: 'POST' });
    req.end();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const w = await writer;
    expect(w.gone.aborted).toBe(false);
    const started = Date.now();
    const held = pause(30_000, w.gone);
    req.destroy();
    await held;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(w.gone.aborted).toBe(true);
    await expect(w.send('late', {})).resolves.toBeUndefined();
  });

  test('a pause without an abort lasts its time', async () => {
    const started = Date.now();
    await pause(120, new AbortController().signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  });
});
