import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { trace } from '@opentelemetry/api';
import { mongoStatement, redactedUrlAttributes, shutdownTelemetry, startTelemetry, telemetryEnabled, serviceNameFromEnvironment } from '@ars/telemetry';

/** A stand-in OTLP/HTTP collector: records every request body sent to it. */
async function startCollector(): Promise<{ url: string; received: { path: string; body: string }[]; close(): Promise<void> }> {
  const received: { path: string; body: string }[] = [];
  const server: Server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('telemetry is off unless an endpoint is configured', () => {
  test('without an endpoint startTelemetry is a no-op with a shutdown function', async () => {
    const telemetry = startTelemetry({ serviceName: 'runs' });
    expect(telemetry.enabled).toBe(false);
    expect(telemetryEnabled()).toBe(false);
    await expect(telemetry.shutdown()).resolves.toBeUndefined();
  });
});

describe('with an endpoint, spans are exported over OTLP/HTTP', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  beforeEach(async () => {
    collector = await startCollector();
  });
  afterEach(async () => {
    await shutdownTelemetry();
    await collector.close();
  });

  test('a span ended before shutdown reaches <endpoint>/v1/traces', async () => {
    const telemetry = startTelemetry({ serviceName: 'runs-test', serviceVersion: '1.2.3', otlpEndpoint: collector.url, instrumentations: [] });
    expect(telemetry.enabled).toBe(true);
    trace.getTracer('test').startSpan('start-run').end();
    await telemetry.shutdown();
    expect(telemetryEnabled()).toBe(false);
    const traces = collector.received.filter((r) => r.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    const body = traces.map((r) => r.body).join('');
    expect(body).toContain('start-run');
    expect(body).toContain('runs-test');
    expect(body).toContain('1.2.3');
  });
});

describe('the preload entry starts telemetry for node --import, instrumenting modules loaded after it', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  beforeEach(async () => {
    collector = await startCollector();
  });
  afterEach(async () => collector.close());

  test('an HTTP call in a preloaded child process is exported as a span (build first)', async () => {
    const register = fileURLToPath(new URL('../dist/register.js', import.meta.url));
    const script = `
      import { createServer, get } from 'node:http';
      const server = createServer((req, res) => res.end('hi')).listen(0, '127.0.0.1', () => {
        get('http://127.0.0.1:' + server.address().port + '/hello?code=SECRETCODE&state=SECRETSTATE&page=2', { headers: { authorization: 'Bearer SECRETTOKEN' } }, (res) => { res.resume(); res.on('end', () => server.close()); });
      });
    `;
    const child = spawn(process.execPath, ['--import', register, '--input-type=module', '-e', script], {
      env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'preloaded-service' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const body = collector.received
      .filter((r) => r.path === '/v1/traces')
      .map((r) => r.body)
      .join('');
    expect(body).toContain('preloaded-service');
    expect(body).toContain('/hello');
    // Query values of OAuth and token parameters are redacted, other parameters kept; no header is recorded.
    expect(body).toContain('page=2');
    expect(body).not.toContain('SECRETCODE');
    expect(body).not.toContain('SECRETSTATE');
    expect(body).not.toContain('SECRETTOKEN');
  });
});

describe('outgoing undici requests record their URL with token query values redacted', () => {
  test('code and access_token read REDACTED, other parameters stay, credentials in the URL go', () => {
    expect(redactedUrlAttributes('/cb?code=SECRET&access_token=T0K&page=2', 'http://user:pw@127.0.0.1:8080')).toEqual({
      'url.full': 'http://127.0.0.1:8080/cb?code=REDACTED&access_token=REDACTED&page=2',
      'url.query': '?code=REDACTED&access_token=REDACTED&page=2',
    });
  });
});

describe('MongoDB statements carry no value and no field name inside documents', () => {
  test('only the command’s own fields, each "?"', () => {
    const statement = mongoStatement({
      insert: 'run_events',
      documents: [{ payload: { 'sk-live-agentkey': 'the agent said a secret' } }],
      ordered: true,
    });
    expect(JSON.parse(statement)).toEqual({ insert: '?', documents: '?', ordered: '?' });
    expect(statement).not.toContain('agent');
  });
});

describe('the preload names the service from OTEL_SERVICE_NAME or the entry package', () => {
  test('OTEL_SERVICE_NAME wins', () => {
    expect(serviceNameFromEnvironment({ OTEL_SERVICE_NAME: 'gateway' }, '/nowhere/main.js')).toBe('gateway');
  });
  test('else the package of the entry script, without the @ars/ scope', () => {
    expect(serviceNameFromEnvironment({}, fileURLToPath(new URL('./telemetry.ts', import.meta.url)))).toBe('telemetry');
  });
});
