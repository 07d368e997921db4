import { createServer, type Server } from 'node:http';
import { AppError } from '@ars/errors';
import { createHttpClient, waitingOutPeerOutage, type HttpClient } from '@ars/http-client';
import { createLogger } from '@ars/logger';
import { freePort } from '@ars/testenv';

const logger = createLogger({ service: 'http-client-test', level: 'silent' });
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A peer on `port` answering every request with the success envelope. */
async function startPeerOn(port: number): Promise<void> {
  const server: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"data":{"up":true}}'));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
}

function client(port: number): HttpClient {
  const created = createHttpClient({ baseUrl: `http://127.0.0.1:${port}`, caller: 'sandboxes', timeoutMs: 1_000, logger, peer: 'catalog' });
  closers.push(() => created.close());
  return created;
}

describe('waitingOutPeerOutage: a peer briefly unavailable is waited out, any other failure is thrown at once', () => {
  test('a peer down at the first call and up a moment later: the call succeeds', async () => {
    const port = await freePort();
    const catalog = client(port);
    let attempts = 0;
    setTimeout(() => void startPeerOn(port), 700);
    const answer = await waitingOutPeerOutage(
      () => {
        attempts += 1;
        return catalog.get<{ up: boolean }>('/anything');
      },
      { withinMs: 20_000, firstDelayMs: 100 },
    );
    expect(answer).toEqual({ up: true });
    expect(attempts).toBeGreaterThan(1);
  });

  test('a peer that stays down: its SERVICE_UNAVAILABLE once the time given has passed', async () => {
    const catalog = client(await freePort());
    let attempts = 0;
    const failure = await waitingOutPeerOutage(
      () => {
        attempts += 1;
        return catalog.get('/anything');
      },
      { withinMs: 600, firstDelayMs: 100, maxDelayMs: 100 },
    ).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: expect.stringContaining('catalog is unreachable') });
    expect(attempts).toBeGreaterThan(1);
  });

  test('another failure (NOT_FOUND) is thrown at the first call', async () => {
    let attempts = 0;
    const failure = await waitingOutPeerOutage(
      () => {
        attempts += 1;
        return Promise.reject(AppError.notFound('no such repository'));
      },
      { withinMs: 10_000 },
    ).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'NOT_FOUND' });
    expect(attempts).toBe(1);
  });

  test('an abort ends the waiting at once with the last error', async () => {
    const controller = new AbortController();
    let attempts = 0;
    const waiting = waitingOutPeerOutage(
      () => {
        attempts += 1;
        return Promise.reject(new AppError('SERVICE_UNAVAILABLE', 'catalog is unreachable'));
      },
      { withinMs: 60_000, firstDelayMs: 10_000, signal: controller.signal },
    ).catch((error: unknown) => error);
    controller.abort();
    expect(await waiting).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(attempts).toBe(1);
  });
});
