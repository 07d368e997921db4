// What runService puts at a service's HTTP edge: metrics on a listener of their own (never the API's
// port), and the timeouts of the common settings applied to both listeners. Services run in-process
// on reserved ports; slow clients speak over raw sockets.
import { connect, createServer, type Server } from 'node:net';
import { ConfigError, loadConfig, serviceConfig } from '@ars/config';
import { createLogger } from '@ars/logger';
import { HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '@ars/http-app';
import { runService, type RunningService } from '@ars/service';
import { freePort } from '@ars/testenv';

const logger = createLogger({ service: 'edge-service-test', level: 'silent' });
const inProcess = { handleSignals: false, exit: () => undefined, logger };
/** Long enough for any answer on a loaded 2-core machine; an answer that does not come by then is a hang. */
const HANG_GUARD_MS = 20_000;

const running: RunningService[] = [];
const holders: Server[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((service) => service.shutdown('test over')));
  await Promise.all(holders.splice(0).map((holder) => new Promise((resolve) => holder.close(resolve))));
});

async function startService(env: Record<string, string>): Promise<RunningService> {
  const service = await runService({ name: 'edge-test', runtime: { ...inProcess, env: { PORT: String(await freePort()), ...env } } });
  running.push(service);
  return service;
}

describe("metrics answer on a listener of their own (METRICS_HOST:METRICS_PORT), never on the service's API port", () => {
  test('METRICS_PORT serves GET /metrics in the Prometheus text format; the API port answers 404 NOT_FOUND in the envelope', async () => {
    const metricsPort = await freePort();
    const service = await startService({ METRICS_PORT: String(metricsPort) });
    expect(service.metricsUrl).toBe(`http://127.0.0.1:${metricsPort}/metrics`);
    const scrape = await fetch(service.metricsUrl);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    expect(await scrape.text()).toContain('ars_service="edge-test"');
    const onTheApi = await fetch(`${service.url}/metrics`);
    expect(onTheApi.status).toBe(404);
    expect(await onTheApi.json()).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'No route for GET /metrics' } });
  });

  test('without METRICS_PORT the listener takes a free port on loopback, named in metricsUrl', async () => {
    const service = await startService({});
    expect(service.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(service.metricsServer.port).not.toBe(service.server.port);
    expect((await fetch(service.metricsUrl)).status).toBe(200);
  });

  test('the metrics listener closes with the service', async () => {
    const service = await startService({});
    running.splice(running.indexOf(service), 1);
    expect(await service.shutdown('test')).toBe(0);
    await expect(fetch(service.metricsUrl)).rejects.toThrow();
  });

  test('a METRICS_PORT another process holds stops start-up with an error naming it', async () => {
    const held = await freePort();
    const holder = createServer();
    holders.push(holder);
    await new Promise<void>((resolve) => holder.listen(held, '127.0.0.1', resolve));
    await expect(startService({ METRICS_PORT: String(held) })).rejects.toThrow(
      `edge-test: cannot listen on 127.0.0.1:${held} (METRICS_PORT): the port is in use by another process (EADDRINUSE)`,
    );
  });

  test('METRICS_PORT equal to PORT is a configuration error', async () => {
    const port = await freePort();
    await expect(runService({ name: 'edge-test', runtime: { ...inProcess, env: { PORT: String(port), METRICS_PORT: String(port) } } })).rejects.toThrow(
      new ConfigError([`METRICS_PORT must differ from PORT (both ${port}): metrics have a listener of their own, never the API's port`]),
    );
  });
});

describe('the HTTP edge timeouts are settings (HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS, HTTP_KEEP_ALIVE_TIMEOUT_MS) applied to both listeners', () => {
  test("the defaults are startHttpServer's: 10 s for headers, 30 s for a request, 65 s of keep-alive", () => {
    const config = loadConfig(serviceConfig({ service: 'edge-test', port: 1 }), {});
    expect([config.HTTP_HEADERS_TIMEOUT_MS, config.HTTP_REQUEST_TIMEOUT_MS, config.HTTP_KEEP_ALIVE_TIMEOUT_MS]).toEqual([
      HEADERS_TIMEOUT_MS,
      REQUEST_TIMEOUT_MS,
      KEEP_ALIVE_TIMEOUT_MS,
    ]);
    expect([HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS]).toEqual([10_000, 30_000, 65_000]);
  });

  test.each(['API', 'metrics'] as const)(
    'a client sending partial headers to the %s listener is answered 400 BAD_REQUEST in the envelope once HTTP_HEADERS_TIMEOUT_MS passes',
    async (listener) => {
      const service = await startService({ HTTP_HEADERS_TIMEOUT_MS: '300', HTTP_REQUEST_TIMEOUT_MS: '600', HTTP_KEEP_ALIVE_TIMEOUT_MS: '5000' });
      const target = listener === 'API' ? service.server : service.metricsServer;
      expect([target.server.headersTimeout, target.server.requestTimeout, target.server.keepAliveTimeout]).toEqual([300, 600, 5_000]);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port: target.port });
        let text = '';
        const guard = setTimeout(() => {
          socket.destroy();
          reject(new Error(`no answer within ${HANG_GUARD_MS} ms: ${JSON.stringify(text)}`));
        }, HANG_GUARD_MS);
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
        socket.on('error', () => undefined);
        socket.once('close', () => {
          clearTimeout(guard);
          resolve(text);
        });
        socket.once('connect', () => socket.write('GET /healthz HTTP/1.1\r\nHost: edge\r\n'));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(answer).toContain('\r\nConnection: close\r\n');
      const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
      expect(JSON.parse(body)).toEqual({
        ok: false,
        error: { code: 'BAD_REQUEST', message: 'Request not received in time: its headers must arrive within 300 ms and the whole request within 600 ms' },
      });
    },
  );

  test('HTTP_HEADERS_TIMEOUT_MS above HTTP_REQUEST_TIMEOUT_MS is a configuration error naming both', async () => {
    await expect(
      runService({ name: 'edge-test', runtime: { ...inProcess, env: { PORT: String(await freePort()), HTTP_HEADERS_TIMEOUT_MS: '40000' } } }),
    ).rejects.toThrow(
      new ConfigError(['HTTP_HEADERS_TIMEOUT_MS (40000) must not exceed HTTP_REQUEST_TIMEOUT_MS (30000): the headers are part of the request']),
    );
  });
});
